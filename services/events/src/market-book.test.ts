import { eventProto } from "../test/fixtures";
import { MarketBook, mergeMarketBook } from "./market-book";
import { renderEvent, type ContractOdds } from "./render";

describe("mergeMarketBook", () => {
  const latest = renderEvent(eventProto({ eventId: "AFL_BOOK" }));
  const over = latest.odds["points-all-game-ou-over"]!;
  const asBooked = (side: ContractOdds): ContractOdds => {
    const { altLines: _lines, ...rest } = side;
    return { ...rest, byBookmaker: {} };
  };

  it("keeps each side the event is priced on without its prices, in its members' order, sorted by oddID", () => {
    const book = mergeMarketBook(undefined, latest);
    expect(Object.keys(book)).toEqual(Object.keys(latest.odds).sort());
    expect(Object.keys(book["points-all-game-ou-over"]!)).toEqual(Object.keys(asBooked(over)));
    expect(book["points-all-game-ou-over"]).toEqual(asBooked(over));
    // The event's own sides are left as they were: the book is made of copies.
    expect(Object.keys(over.byBookmaker)).not.toHaveLength(0);
    expect(over.altLines).toBeDefined();
  });

  it("replaces held sides with the latest, keeps held sides no longer priced, and fills gaps only from closed sides", () => {
    const gone = { ...asBooked(over), oddID: "goals-all-game-ou-over", marketName: "gone since" };
    const previous = {
      "points-all-game-ou-over": { ...asBooked(over), marketName: "as held" },
      "goals-all-game-ou-over": gone,
    };
    const closed = {
      "points-all-game-ou-over": { ...over, marketName: "closed before" },
      "goals-all-game-ou-over": { ...over, marketName: "closed before" },
      "aaa-all-game-ou-over": { ...over, oddID: "aaa-all-game-ou-over", marketName: "closed only" },
    };
    const book = mergeMarketBook(previous, latest, closed);
    expect(book["points-all-game-ou-over"]!.marketName).toBe(over.marketName);
    expect(book["goals-all-game-ou-over"]).toEqual(gone);
    expect(book["aaa-all-game-ou-over"]).toEqual({
      ...asBooked(over),
      oddID: "aaa-all-game-ou-over",
      marketName: "closed only",
    });
    expect(Object.keys(book)).toEqual(
      [...new Set([...Object.keys(latest.odds), "goals-all-game-ou-over", "aaa-all-game-ou-over"])].sort(),
    );
    // Packed and read back as the store keeps it.
    expect(MarketBook.pack(book).sides()).toEqual(book);
  });
});
