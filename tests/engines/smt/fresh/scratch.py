import sys
from tests.engines.smt.agree import smt_outcomes, explore_outcomes
from tests.engines.smt.models import program
text = open(sys.argv[1]).read()
prog = program(text)
for subj in sys.argv[2:]:
    print("==", subj)
    try:
        e = explore_outcomes(prog, subj)
        print("explore:"); [print("  ", o) for o in e]
    except BaseException as ex:
        print("explore EXC", repr(ex)[:500])
    try:
        s = smt_outcomes(prog, subj)
        print("smt:"); [print("  ", o) for o in s]
    except BaseException as ex:
        print("smt EXC", repr(ex)[:800])
