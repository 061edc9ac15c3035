// Price formats are defined once in the contracts package: the events service renders v1 prices with them too.
import { priceFormat } from "@odds/proto";

export const {
  InvalidPriceError,
  impliedProbability,
  decimalToAmerican,
  americanToDecimal,
  probabilityToAmerican,
  formatLine,
} = priceFormat;
