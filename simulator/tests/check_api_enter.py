"""Every exported AscendCL function of libacl_sim.a counts through the fault-injection hook.

Usage: check_api_enter.py <libacl_sim.a> <simulator/src>

Lists the library's exported `acl*` and `hi_mpi_*` functions (nm; the simulator-only `aclsim*`
extensions excepted) and checks that each one's definition in src/*/*.cpp starts with
SIM_API_ENTER() or SIM_API_ENTER_OR(...), so that ACL_SIM_FAIL and aclsimCallCount
reach it, and that src/api/api_names.cpp (the names ACL_SIM_FAIL accepts) lists exactly
those functions. Exits 1 naming every function that does not.
"""

import re
import subprocess
import sys
from pathlib import Path

DEF = re.compile(r"^[A-Za-z_][\w\s\*]*?\b(acl(?!sim)\w+|hi_mpi_\w+)\(([^;{]*?)\)\s*\{", re.M | re.S)


def main() -> int:
    lib, src = sys.argv[1], Path(sys.argv[2])
    out = subprocess.run(["nm", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    exported = sorted(
        {line.split()[-1] for line in out.splitlines() if re.search(r" T (acl(?!sim)|hi_mpi_)\w*$", line)}
    )
    first_statement: dict[str, tuple[str, bool]] = {}
    for path in sorted(src.glob("*/*.cpp")):
        text = path.read_text()
        for m in DEF.finditer(text):
            body = text[m.end() : m.end() + 400].strip()
            first_statement[m.group(1)] = (path.name, "SIM_API_ENTER" in body.split(";")[0])
    bad = [name for name in exported if not first_statement.get(name, ("", False))[1]]
    for name in bad:
        where = first_statement.get(name, ("definition not found",))[0]
        print(f"{name} ({where}): does not start with SIM_API_ENTER", file=sys.stderr)
    print(f"{len(exported)} exported acl* and hi_mpi_* functions, {len(bad)} without SIM_API_ENTER")
    # api_names.cpp lists the same names: ACL_SIM_FAIL rules are checked against it.
    listed = sorted(set(re.findall(r'"((?:acl|hi_mpi_)\w+)"', (src / "api" / "api_names.cpp").read_text())))
    drift = sorted(set(exported) ^ set(listed))
    for name in drift:
        where = "exported but not listed" if name in exported else "listed but not exported"
        print(f"{name}: {where} in api_names.cpp", file=sys.stderr)
    return 1 if bad or drift or not exported else 0


if __name__ == "__main__":
    sys.exit(main())
