import { ApiError } from "../src/http/errors";

/** The ApiError a call throws; fails the test when it throws nothing or something else. */
export function rejection(run: () => unknown): ApiError {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error("expected the query to be rejected");
}
