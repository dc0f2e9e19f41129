#!/usr/bin/python3
"""NumPy's einsum grammar in full (SPEC 1, issue 26), each expression written as-is into a
one-node graph and evaluated by `einplan eval` against numpy.einsum, in f64 and f32.

The table is transcribed in the style of the public suites (NumPy's test_einsum, opt_einsum's
test_contract and test_input, TensorFlow's and JAX's einsum tests): sizes per letter as in
opt_einsum's build_views (a=2 b=3 c=4 d=5 e=4 f=3 g=2 h=6 i=5 j=4), "..." standing for two
dimensions of sizes 5 and 4 unless a shape list is given; hadamard, outer, inner, GEMM-like,
index transformations, repeated labels within an operand (traces, diagonals), implicit
outputs, ellipses, scalars and size-1 broadcasting. Usage: einsum_numpy.py EINPLAN WORK
"""
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np

SIZES = dict(zip("abcdefghij", [2, 3, 4, 5, 4, 3, 2, 6, 5, 4]))
ELLIPSIS = [5, 4]

# (expression, explicit operand shapes or None)
CASES = [
    # hadamard-like, index transformations
    ("a,ab,abc->abc", None), ("a,b,ab->ab", None), ("ea,fb,gc,hd,abcd->efgh", None),
    ("ea,fb,abcd,gc,hd->efgh", None), ("abcd,ea,fb,gc,hd->efgh", None), ("abc,abc->abc", None),
    ("abc,ab,abc->abc", None),
    # complex contractions, implicit outputs, repeated labels among them
    ("acdf,jbje,gihb,hfac,gfac,gifabc,hfac", None), ("cd,bdhe,aidb,hgca,gc,hgibcd,hgac", None),
    ("abhe,hidj,jgba,hiab,gab", None), ("bde,cdh,agdb,hica,ibd,hgicd,hiac", None),
    ("chd,bde,agbc,hiad,hgc,hgi,hiad", None), ("chd,bde,agbc,hiad,bdi,cgh,agdb", None),
    ("bdhe,acad,hiab,agac,hibd", None),
    # outer products
    ("ab,cd,ef->abcdef", None), ("ab,cd,ef->acdf", None), ("ab,cd,de->abcde", None), ("ab,cd,de->be", None),
    ("ab,bcd,cd->abcd", None), ("ab,bcd,cd->abd", None), ("a,b", None), ("ab,c->cab", None),
    # random contractions with traces and diagonals
    ("eb,cb,fb->cef", None), ("dd,fb,be,cdb->cef", None), ("bca,cdb,dbf,afc->", None), ("dcc,fce,ea,dbf->ab", None),
    ("fdf,cdd,ccd,afe->ae", None), ("abcd,ad", None), ("ed,fcd,ff,bcf->be", None), ("baa,dcf,af,cde->be", None),
    ("bd,db,eac->ace", None), ("fff,fae,bef,def->abd", None), ("efc,dbc,acf,fd->abe", None),
    ("aab,fa,df,ecc->bde", None), ("ecb,fef,bad,ed->ac", None), ("bcf,bbb,fbf,fc->", None), ("bb,ff,be->e", None),
    ("bcb,bb,fc,fff->", None), ("fbb,dfd,fc,fc->", None), ("afd,ba,cc,dc->bf", None), ("adb,bc,fa,cfc->d", None),
    ("bbd,bda,fc,db->acf", None), ("dba,ead,cad->bce", None), ("aef,fbc,dca->bde", None),
    # inner products
    ("ab,ab", None), ("ab,ba", None), ("abc,abc", None), ("abc,bac", None), ("abc,cba", None), ("i,i->", None), ("i,i", None),
    # GEMM-like
    ("ab,bc", None), ("ab,cb", None), ("ba,bc", None), ("ba,cb", None), ("abcd,cd", None), ("abcd,ab", None),
    ("abcd,cdef", None), ("abcd,cdef->feba", None), ("abcd,efdc", None),
    # inner then dot, with diagonals
    ("aab,bc->ac", None), ("ab,bcc->ac", None), ("aab,bcc->ac", None), ("baa,bcc->ac", None), ("aab,ccb->ac", None),
    # single operand: traces, diagonals, sums, transposes
    ("aa->a", None), ("aa", None), ("aa->", None), ("ab->", None), ("ab->ba", None), ("ba", None), ("aab->ab", None),
    ("aab->b", None), ("aba->ab", None), ("abab->ab", None), ("a->", None), ("a", None),
    # ellipses
    ("...a->...", None), ("a...->...", None), ("ab...,bc...->ac...", None), ("a...a->...a", None),
    ("...ab,...bc->...ac", None), ("...,...->...", None), ("...bc->...cb", None),
    ("bc...,cd...->bd...", None), ("...bb->...b", None), ("...bc,...cd", None), ("...", None), ("b...", None),
    ("...b,b", None), ("...b,b...->...", None), ("...a,...a->...", [[3, 2], [4, 3, 2]]),
    ("ab...,b->...a", [[2, 3, 5], [3]]), ("...ij,...jk->...ik", [[2, 1, 3, 4], [5, 4, 6]]),
    # scalars
    ("->", [[]]), (",->", [[], []]), (",ab->ab", [[], [2, 3]]), ("ab,->ab", [[2, 3], []]), (",a", [[], [4]]),
    # size-1 broadcasting
    ("ij,ij->ij", [[1, 3], [2, 3]]), ("ij,jk->ik", [[2, 1], [3, 4]]), ("ab,ab->", [[2, 1], [1, 3]]),
    ("...i,...i->...i", [[2, 1, 3], [4, 3]]), ("i,ij->ij", [[1], [3, 4]]),
    # a label repeated within an operand whose dimensions there all have size 1 (NumPy's
    # test_einsum), and an output '...' where no operand has one
    ("cacc,bcb->", [[1, 1, 1, 1], [1, 4, 1]]), ("cacc,bcb->c", [[1, 1, 1, 1], [1, 4, 1]]),
    ("aab,ab->ab", [[1, 1, 3], [4, 3]]), ("->...", [[]]), ("ij->...", None), ("i,i->...", None),
    # multi-character labels, with repeats and an ellipsis
    ("row row -> row", [[3, 3]]), ("tok dim, tok dim, tok -> tok", [[4, 3], [4, 3], [4]]),
    ("batch ... feat, feat out -> batch ... out", [[2, 3, 4], [4, 5]]),
]


def numpy_spelling(expr):
    """`expr` as numpy.einsum reads it: multi-character labels become single letters."""
    if " " not in expr.strip():
        return expr
    letters = iter("pqrstuvwxyzPQRSTUVWXYZ")
    names = {}
    out = []
    for part in expr.replace("->", " -> ").replace(",", " , ").split():
        if part in ("->", ",", "..."):
            out.append(part)
        else:
            if part not in names:
                names[part] = next(letters)
            out.append(names[part])
    return "".join(out)


def shapes_for(expr, explicit):
    if explicit is not None:
        return explicit
    lhs = expr.split("->")[0]
    shapes = []
    for term in lhs.split(","):
        term = term.strip()
        shape = []
        i = 0
        while i < len(term):
            if term.startswith("...", i):
                shape += ELLIPSIS
                i += 3
            else:
                shape.append(SIZES[term[i]])
                i += 1
        shapes.append(shape)
    return shapes


def main():
    einplan, work = sys.argv[1], pathlib.Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    rng = np.random.default_rng(26)
    failures = 0
    for n, (expr, explicit) in enumerate(CASES):
        shapes = shapes_for(expr, explicit)
        for dtype, numpy_type, tol in (("f64", np.float64, 1e-10), ("f32", np.float32, 1e-4)):
            case = work / f"case{n}_{dtype}"
            (case / "in").mkdir(parents=True)
            names = [f"T{k}" for k in range(len(shapes))]
            arrays = []
            for name, shape in zip(names, shapes):
                a = rng.uniform(-1, 1, size=shape).astype(numpy_type)
                np.save(case / "in" / f"{name}.npy", a)
                arrays.append(a)
            graph = {"name": "one", "dtype": dtype, "inputs": {name: list(shape) for name, shape in zip(names, shapes)},
                     "nodes": [{"name": "Z", "einsum": expr, "inputs": names}]}
            (case / "g.json").write_text(json.dumps(graph))
            p = subprocess.run([einplan, "eval", case / "g.json", "--inputs", case / "in", "--outputs", case / "out"],
                               capture_output=True, text=True)
            # NumPy reads single-character subscripts; a multi-character einsum gets one letter per label.
            want = np.einsum(numpy_spelling(expr), *[a.astype(np.float64) for a in arrays])
            if p.returncode != 0:
                print(f"FAIL {expr!r} {dtype}: exit {p.returncode}: {p.stderr.strip()[:300]}")
                failures += 1
                continue
            got = np.load(case / "out" / "Z.npy")
            scale = max(1.0, float(np.max(np.abs(want))) if want.size else 1.0)
            if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol * scale):
                print(f"FAIL {expr!r} {dtype}: shape {got.shape} vs {want.shape}, max error "
                      f"{float(np.max(np.abs(got - want))) if got.shape == want.shape else 'n/a'}")
                failures += 1
        shutil.rmtree(work / f"case{n}_f64", ignore_errors=True)
        shutil.rmtree(work / f"case{n}_f32", ignore_errors=True)
    print(f"{2 * len(CASES) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
