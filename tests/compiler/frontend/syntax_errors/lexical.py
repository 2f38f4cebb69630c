# Lexical errors: each line fails on its own; the rest of the file still parses.
# expected-error@+1:5: unterminated string literal
s = 'abc
# expected-error@+1:9: unexpected character '$'
x = 1 + $
# expected-error@+1:5: integer literal is too large
y = 9223372036854775808
# expected-error@+1:5: invalid decimal literal
z = 1_
# expected-error@+1:5: leading zeros
z = 012
# expected-error@+1:5: invalid hexadecimal literal
z = 0x
# expected-error@+1:5: invalid digit '2' in binary literal
z = 0b12
# expected-error@+1:5: imaginary
z = 3j
# expected-error@+1:8: unmatched ')'
z = (1))
# expected-error@+1:10: does not match opening '['
z = [1, 2)
# expected-error@+1:6: invalid \x escape
z = "\x4"
# expected-error@+1:9: unexpected character after line continuation
z = 1 + \ 2
# expected-error@+1:5: bytes literals are not supported
z = b'abc'
