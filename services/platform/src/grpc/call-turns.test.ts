import { CallTurns } from "./call-turns";

describe("CallTurns", () => {
  it("starts calls made together in order, each two turns after the call before it", async () => {
    const turns = new CallTurns();
    const marks: string[] = [];
    const first = turns.start(async () => {
      marks.push("first");
      // The two turns after the first call's (its answer's message, then its trailers): the second starts after both.
      setImmediate(() => {
        marks.push("the turn after the first");
        setImmediate(() => marks.push("the turn after that"));
      });
      return 1;
    });
    const second = turns.start(async () => {
      marks.push("second");
      return 2;
    });
    expect(marks).toEqual([]);
    await expect(Promise.all([first, second])).resolves.toEqual([1, 2]);
    expect(marks).toEqual(["first", "the turn after the first", "the turn after that", "second"]);
  });

  it("spaces only the starts: a call that waits lets the next one start and finish meanwhile", async () => {
    const turns = new CallTurns();
    let release = (): void => undefined;
    const waiting = turns.start(() => new Promise<string>((resolve) => (release = () => resolve("waited"))));
    await expect(turns.start(async () => "next")).resolves.toBe("next");
    release();
    await expect(waiting).resolves.toBe("waited");
  });

  it("settles a call as its start does, and a start that throws does not stop the calls after it", async () => {
    const turns = new CallTurns();
    const throwsAtOnce = turns.start((): Promise<number> => {
      throw new Error("thrown before any promise");
    });
    const rejects = turns.start(() => Promise.reject(new Error("rejected")));
    const after = turns.start(async () => "still started");
    await expect(throwsAtOnce).rejects.toThrow("thrown before any promise");
    await expect(rejects).rejects.toThrow("rejected");
    await expect(after).resolves.toBe("still started");
  });
});
