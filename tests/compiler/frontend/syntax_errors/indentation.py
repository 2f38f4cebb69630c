# Indentation errors.
# expected-error@+4:3: unindent does not match any outer indentation level
def f():
    x = 1
  # a comment is fine
  y = 2
# expected-error@+2:5: unexpected indent
x = 1
    y = 2
# expected-error@+3:2: inconsistent use of tabs and spaces in indentation
if x:
        a = 1
	b = 2
# expected-error@+2:1: expected an indented block
def g():
return 1
