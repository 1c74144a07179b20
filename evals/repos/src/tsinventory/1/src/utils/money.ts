const CENTS_PER_UNIT = 100;

export function toCents(amount: number): number {
  return Math.round(amount * CENTS_PER_UNIT);
}

export function fromCents(cents: number): number {
  return cents / CENTS_PER_UNIT;
}

export function sumCents(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) {
    if (!Number.isInteger(value)) {
      throw new RangeError(`not a whole number of cents: ${value}`);
    }
    total += value;
  }
  return total;
}

export function applyDiscount(cents: number, percent: number): number {
  if (percent < 0 || percent > 100) {
    throw new RangeError(`discount must be between 0 and 100, got ${percent}`);
  }
  return Math.round((cents * (100 - percent)) / 100);
}
