import { bookmakerByID, layPrice, onLadder } from "./bookmakers";

describe("bookmakers' price ladders", () => {
  const corporate = bookmakerByID("sportsbet")!;
  const exchange = bookmakerByID("betfair_ex_au")!;

  test("a corporate book rounds down onto its ladder's tick for the price's band", () => {
    expect(onLadder(corporate, 1.005)).toBe(1.01);
    expect(onLadder(corporate, 2.537)).toBe(2.53);
    expect(onLadder(corporate, 3.04)).toBe(3);
    expect(onLadder(corporate, 10.99)).toBe(10.9);
    expect(onLadder(corporate, 20.99)).toBe(20.5);
    expect(onLadder(corporate, 50.5)).toBe(50);
    expect(onLadder(corporate, 760)).toBe(500);
  });

  test("the exchange rounds onto Betfair's ladder, and lays a number of ticks above the back price", () => {
    expect(onLadder(exchange, 1.999)).toBe(1.99);
    expect(onLadder(exchange, 5.55)).toBe(5.5);
    expect(onLadder(exchange, 29.9)).toBe(29);
    expect(layPrice(1.99, 2)).toBe(2.02);
    expect(layPrice(9.8, 1)).toBe(10);
    expect(layPrice(995, 1)).toBe(1005);
    // Past the ladder's last band, a tick is 10.
    expect(layPrice(1005, 1)).toBe(1015);
  });
});
