def before():
    return 1


# expected-error@+1:5: unterminated triple-quoted string literal
x = '''never
closed
