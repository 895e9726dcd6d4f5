"""Forge a certificate for c01_invariant_names_next_draw.pwhile: the honest certificate's loop
hints plus two invariants, r<1> = r<2> and c<1> = 0 \\/ lapgrid (1 / eps, z'16d5) = x<1> (the
loop's own draw, about to be made), the claim relabelled verified, and the obligations the
kernel itself derives from those hints (so that none is "dropped or weakened").

Usage: python c01_forge.py HONEST.json OUT.json"""
import json
import sys

from checker import aprhl as K
from obligations import terms as T
from obligations import whilelogic as WL
from verifier.language import whilelang as W


def forge(honest: dict) -> dict:
    cert = json.loads(json.dumps(honest))
    claim = cert["claims"][0]
    prog = W.parse_while(cert["source"]["text"], cert["source"]["file"])
    types = W.check_program(prog)
    proc = prog.proc(claim["name"])
    loop = claim["loops"][0]
    inv = K._terms(loop["invariants"])
    line, col = loop["line"], loop["col"]
    head = lambda n, s, r: T.var(WL.head_name(n, line, col), s, r)
    eps = T.var("eps", T.REAL)
    # the kernel's term for the scale 1 / eps and the draw of the Lap at line 16, column 5
    draw = [s for s in W.common_tails_hoisted(proc.body) if isinstance(s, W.While)][0].body[0]
    z = T.var(WL.draw_name("z", draw.span.line, draw.span.col), T.REAL)
    scale = T.div(T.real(1), eps)
    inv += [T.eq(head("r", T.INT, 1), head("r", T.INT, 2)),
            T.or_(T.eq(head("c", T.INT, 1), 0), T.eq(WL.released(scale, z), head("x", T.REAL, 1)))]
    loop["invariants"] = {"vocabulary": T.vocabulary_of(*inv).to_json(),
                          "terms": [T.term_to_json(t) for t in inv],
                          "text": [T.pretty(t) for t in inv]}
    claim["verdict"], claim["guarantee"], claim["confirmation"] = \
        "verified", W.spec_guarantee(proc), None
    d = K._Derivation(proc, types[proc.name], K._hints(claim))
    try:
        d.derive()
    except K._NoRule:   # a kernel that refuses the hint: keep the honest obligations
        return cert
    claim["obligations"] = [ob.to_json() for ob in d.obligations]
    claim["costs"] = [{"line": l, "col": c, "rule": "Lap",
                       "cost": {"vocabulary": T.vocabulary_of(t).to_json(),
                                "terms": [T.term_to_json(t)], "text": [T.pretty(t)]}}
                      for (l, c), t in d.costs.items()]
    return cert


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        honest = json.load(f)
    with open(sys.argv[2], "w") as f:
        json.dump(forge(honest), f, indent=1)
