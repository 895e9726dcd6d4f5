import sys, time
from verifier.aprhl import derive, search
from verifier.language import whilelang as W
n = {"c": 0}
orig = derive.attempt
def counting(*a, **k):
    n["c"] += 1
    return orig(*a, **k)
derive.attempt = counting
for f in sys.argv[1:]:
    prog = W.parse_while_file(f); types = W.check_program(prog)
    for p in prog.procs:
        n["c"] = 0; t = time.time()
        r = derive.verify_proc(p, types[p.name])
        print(f.split('/')[-1], p.name, r.verdict, n["c"], "builds", round(time.time() - t, 1), "s", {k: getattr(v, 'text', lambda: v)() for k, v in r.shifts.items()})
