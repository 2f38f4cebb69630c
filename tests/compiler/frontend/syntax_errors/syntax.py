# Parser errors, one per top-level statement.
# expected-error@+1:7: invalid syntax
x = 1 2
# expected-error@+1:1: cannot assign to function call
f() = 1
# expected-error@+1:1: cannot assign to literal
1 = x
# expected-error@+1:12: parameter without a default follows
def h(a=1, b):
    pass
# expected-error@+1:10: duplicate parameter 'a'
def k(a, a):
    pass
# expected-error@+1:8: positional argument follows keyword argument
f(a=1, 2)
# expected-error@+1:8: keyword argument repeated: a
f(a=1, a=2)
# expected-error@+1:5: set displays are not supported
x = {1, 2}
# expected-error@+1:15: duplicate parameter 'a' in function definition
x = lambda a, a: a
# expected-error@+1:7: assignment expressions (:=) are not supported
if (n := 10) > 5:
    pass
# expected-error@+1:5: await expressions are not supported
x = await y
# expected-error@+1:1: multiple starred expressions in assignment
a, *b, *c = d
# expected-error@+1:1: starred assignment target must be in a list or tuple
*a = b
# expected-error@+1:5: can't use starred expression here
x = *a
# expected-error@+1:6: iterable unpacking cannot be used in comprehension
y = [*a for a in b]
# expected-error@+1:6: cannot use starred expression here
z = (*a)
# expected-error@+1:1: illegal target for augmented assignment
(a, b) += 1
# expected-error@+1:8: expected a name
global 1
# expected-error@+1:1: del statements are not supported
del x
# expected-error@+1:1: raise statements are not supported
raise E
# expected-error@+1:5: Ellipsis
x = ...
# expected-error@+1:6: yield expressions are not supported
x = (yield)
# expected-error@+1:8: iterable argument unpacking follows keyword argument unpacking
f(**a, *b)
# expected-error@+1:17: cannot assign to function call
with open(f) as g():
    pass
# expected-error@+1:1: 'else' without a matching statement
else:
    pass
# expected-error@+1:1: match statements are not supported
match x:
    case 1:
        pass
# expected-error@+1:1: async statements are not supported
async def f():
    pass
# expected-error@+1:8: set comprehensions are not supported
x = {i for i in y}
# expected-error@+1:7: named parameters must follow bare '*'
def m(*, ):
    pass
# expected-error@+1:7: Generator expression must be parenthesized
print(x for x in y, 1)
# expected-error@+1:1: class definitions are not supported
class C:
    pass
# expected-error@+2:1: class definitions are not supported
@decorator
class D:
    pass
# expected-error@+1:1: try statements are not supported
try:
    pass
except E:
    pass
finally:
    pass
# expected-error@+3:17: dict unpacking (**) is not supported
def outer():
    def inner():
        return {**d}
    return inner
# expected-error@+1:11: expected 'else'
x = a if b
