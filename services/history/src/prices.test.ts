import { americanOdds, isOfferablePrice } from "./prices";

describe("americanOdds", () => {
  it("prints favourites as negative and underdogs as positive signed integers", () => {
    expect(americanOdds(1.909090909)).toBe("-110");
    expect(americanOdds(2.5)).toBe("+150");
    expect(americanOdds(1.5)).toBe("-200");
  });

  it("prints even money as +100", () => {
    expect(americanOdds(2)).toBe("+100");
  });
});

describe("isOfferablePrice", () => {
  it("rejects prices that do not return more than the stake", () => {
    expect(isOfferablePrice(1)).toBe(false);
    expect(isOfferablePrice(Number.NaN)).toBe(false);
    expect(isOfferablePrice(1.01)).toBe(true);
  });
});
