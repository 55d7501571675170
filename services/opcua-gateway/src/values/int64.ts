/**
 * node-opcua carries Int64/UInt64 as [high, low] 32-bit words (two's complement for Int64), since
 * a JS number cannot hold 64 bits; xs:long/xs:unsignedLong values go through BigInt so no digit is lost.
 */
const WORD = 2n ** 32n;
const SPAN = 2n ** 64n;

export function bigIntToInt64(value: bigint): [number, number] {
  const unsigned = value < 0n ? value + SPAN : value;
  return [Number(unsigned / WORD), Number(unsigned % WORD)];
}

export function int64ToBigInt([high, low]: [number, number], signed: boolean): bigint {
  const unsigned = BigInt(high >>> 0) * WORD + BigInt(low >>> 0);
  return signed && unsigned >= 2n ** 63n ? unsigned - SPAN : unsigned;
}
