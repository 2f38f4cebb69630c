#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates fp16_reference.txt: SHA-256 digests of IEEE binary16 conversions computed by
Python's struct module (format 'e', round-to-nearest-even), independent of the simulator.

  decode: the 65536 fp16 bit patterns widened to float32, as little-endian float32 bits.
  encode: for every finite fp16 value v (both signs) the float32 inputs v, the midpoint to
          the next larger magnitude, and the float32 neighbours of that midpoint, narrowed
          to fp16 (overflow gives infinity), as little-endian uint16.
The C++ test (half_test.cc) rebuilds the same input list and compares digests.
"""
import hashlib
import math
import struct


def f16(bits):
    return struct.unpack('<e', struct.pack('<H', bits))[0]


def to_f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def next_f32(x, up):
    b = struct.unpack('<I', struct.pack('<f', x))[0]
    if x == 0.0:
        return to_f32(1e-45) if up else -to_f32(1e-45)
    if (x > 0) == up:
        b += 1
    else:
        b -= 1
    return struct.unpack('<f', struct.pack('<I', b))[0]


def narrow(x):
    try:
        return struct.unpack('<H', struct.pack('<e', x))[0]
    except OverflowError:
        return 0xFC00 if x < 0 else 0x7C00


def encode_inputs():
    for sign in (1.0, -1.0):
        for h in range(0, 0x7C00):
            v = f16(h)
            nxt = f16(h + 1) if h + 1 < 0x7C00 else 65536.0  # 2^16: next binade step
            mid = to_f32((v + nxt) / 2)
            for x in (v, mid, next_f32(mid, True), next_f32(mid, False)):
                yield sign * x


def main():
    dec = hashlib.sha256()
    for h in range(65536):
        v = f16(h)
        if math.isnan(v):
            # struct keeps the payload; float32 bits: sign, all-ones exponent, payload << 13.
            bits = ((h & 0x8000) << 16) | 0x7F800000 | ((h & 0x3FF) << 13)
            dec.update(struct.pack('<I', bits))
        else:
            dec.update(struct.pack('<f', v))
    enc = hashlib.sha256()
    count = 0
    for x in encode_inputs():
        enc.update(struct.pack('<H', narrow(x)))
        count += 1
    with open('fp16_reference.txt', 'w') as f:
        f.write('decode %s\n' % dec.hexdigest())
        f.write('encode %s %d\n' % (enc.hexdigest(), count))


if __name__ == '__main__':
    main()
