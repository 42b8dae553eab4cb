#!/usr/bin/env python3
"""Which Core Data symbols that OpenCoreData declares no test names (docs/APICoverage.md, "Counted the strict way").

Reads coverage.tsv, the per-symbol table that ../shared/coredata-api/coverage.py writes with `--out DIR`, and
the Swift files under Tests/. A declared symbol counts only when
  - it is not listed in docs/APICoverage.md's table "Declared, with no effect here" (a symbol that exists but
    does nothing is not real), and
  - some test file names it: a type by its name or one of its members (an enum is named by its cases); a
    member by its spelling at a use site (`.name`, `name:`, `base(firstLabel:…` for a method, whose later
    arguments may have defaults, `Type(label:…` with every label for an initializer, a trailing closure). A member
    whose name is ambiguous (two of Core Data's types have it, or it is a common standard-library name such as
    `count`, `userInfo`, `init(rawValue:)`) must be named in a file that also names its type.
"Named" is not "proven": a test could name a symbol without asserting what it does. The check catches the
symbols no test reaches at all.

Usage, from the project root:
    python3 ../shared/coredata-api/coverage.py --out /tmp/cov
    python3 Scripts/api-coverage-tested.py /tmp/cov/coverage.tsv [--tests Tests] [--quiet]
Prints the symbols that do not count, then the strict count. Exits 1 on a malformed input.
"""
import csv, glob, os, re, sys


def fail(message):
    sys.stderr.write(f"api-coverage-tested: {message}\n")
    sys.exit(1)


def read_symbols(path):
    """The symbols coverage.py counts as present, leaving out deprecated, cloud and beta ones (its first line)."""
    if not os.path.isfile(path):
        fail(f"{path}: no such file (run coverage.py with --out DIR first)")
    with open(path, newline='') as handle:
        rows = list(csv.DictReader(handle, delimiter='\t'))
    needed = {'kind', 'type', 'member', 'present', 'deprecated', 'cloud', 'beta'}
    if not rows or not needed <= set(rows[0]):
        fail(f"{path}: not a coverage.tsv (columns {sorted(needed)} expected)")
    counted = [r for r in rows if r['deprecated'] == 'no' and r['cloud'] == 'no' and r['beta'] == 'no']
    return counted


def read_tests(root):
    files = sorted(glob.glob(os.path.join(root, '**', '*.swift'), recursive=True))
    if not files:
        fail(f"{root}: no Swift test files")
    return {path: open(path, encoding='utf-8').read() for path in files}


def no_effect_symbols(doc_path):
    """`Type.member` names from the first column of docs/APICoverage.md's "Declared, with no effect here" table."""
    if not os.path.isfile(doc_path):
        return set()
    text = open(doc_path, encoding='utf-8').read()
    start = text.find('## Declared, with no effect here')
    if start < 0:
        return set()
    section = text[start:].split('\n## ', 1)[0]
    names = set()
    for line in section.splitlines():
        if line.startswith('| `'):
            names.update(re.findall(r'`([^`]+)`', line.split('|')[1]))
    return names


def member_patterns(kind, member):
    """Regexes any of which names the member at a use or override site."""
    m = re.match(r'^(\w+)\((.*)\)$', member)
    if not m:                                              # a property, case or constant
        name = re.escape(member)
        return [rf'\.{name}\b', rf'\b{name}\s*:', rf'\b(?:var|case|let)\s+{name}\b'] + \
               ([rf'\b{name}\b'] if kind in ('var', 'static var') and member[:2] == 'NS' else [])
    base, labels = m.group(1), [l for l in m.group(2).split(':') if l]
    named = [l for l in labels if l != '_']
    def after(ls):
        # `label:` at a call, `label name:` in an override's declaration
        return ''.join(rf'[^;{{}}]*?\b{re.escape(l)}(?:\s+\w+)?\s*:' for l in ls)
    if base == 'init':                                    # an initializer: every label, in order
        call = r'(?:\b[A-Z]\w*|\.init|\binit|\bsuper\.init|\bself\.init)\s*'
        if not labels:
            return [call + r'\(\s*\)']
        if not named:
            return [call + r'\((?!\s*\w+\s*:)']
    else:                                                 # a method: its first label (later ones may have defaults)
        call = rf'\b{re.escape(base)}\s*'
        named = named[:1]
    patterns = [call + r'\(' + after(named)]
    if named and labels[-1] == named[-1] and len(labels) == len(named):   # the last argument, a closure, trails
        leading = after(named[:-1])
        patterns.append(call + (r'\(' + leading + r'[^;{}]*?\)\s*\{' if leading else r'(?:\(\s*\))?\s*\{'))
    return patterns


def type_names(entry):
    """Words that show a file works with the member's type: each component of its name, and the last word of
    the class's name as a variable is usually called (`context` for NSManagedObjectContext, `coordinator`)."""
    parts = [p for p in entry['type'].split('.') if p != '(global)']
    words = set(parts)
    if parts:
        last = re.findall(r'[A-Z][a-z]+', parts[0])
        if last and last[-1] not in ('Type', 'Description', 'Request', 'Result', 'Store'):
            words.add(last[-1].lower())
    return words


COMMON_NAMES = {'count', 'userInfo', 'label', 'name', 'progress', 'cancel()', 'init(rawValue:)', 'init(coder:)',
                'init()', 'subscript(_:)', 'binary', 'objectIDs', 'immediate', 'overwrite', 'url', 'type'}


def ambiguous_members(symbols):
    owners = {}
    for s in symbols:
        if s['kind'] not in TYPE_KINDS:
            owners.setdefault(s['member'], set()).add(s['type'])
    return {m for m, types in owners.items() if len(types) > 1} | COMMON_NAMES


TYPE_KINDS = ('class', 'struct', 'enum', 'protocol', 'typealias')


def is_named(entry, tests, ambiguous, members_of):
    kind, member = entry['kind'], entry['member']
    if kind in TYPE_KINDS:
        word = re.compile(rf'\b{re.escape(member.split(".")[-1])}\b')
        if any(word.search(text) for text in tests.values()):
            return True
        return any(is_named(m, tests, ambiguous, members_of) for m in members_of.get(entry['type'], []))
    patterns = [re.compile(p, re.S) for p in member_patterns(kind, member)]
    owners = [re.compile(rf'\b{re.escape(n)}\b') for n in type_names(entry)] if member in ambiguous else []
    for text in tests.values():
        if owners and not any(o.search(text) for o in owners):
            continue
        if any(p.search(text) for p in patterns):
            return True
    return False


def main(argv):
    args = list(argv)
    quiet = '--quiet' in args
    if quiet:
        args.remove('--quiet')
    tests_root = 'Tests'
    if '--tests' in args:
        i = args.index('--tests')
        if i + 1 >= len(args):
            fail('--tests needs a folder')
        tests_root = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        fail('usage: api-coverage-tested.py COVERAGE_TSV [--tests Tests] [--quiet]')
    symbols = read_symbols(args[0])
    tests = read_tests(tests_root)
    no_effect = no_effect_symbols('docs/APICoverage.md')
    present = [s for s in symbols if s['present'] == 'yes']
    inert = [s for s in present if f"{s['type']}.{s['member']}" in no_effect or s['member'] in no_effect]
    ambiguous = ambiguous_members(symbols)
    members_of = {}
    for s in symbols:
        if s['kind'] not in TYPE_KINDS:
            members_of.setdefault(s['type'], []).append(s)
    untested = [s for s in present if s not in inert and not is_named(s, tests, ambiguous, members_of)]
    if not quiet:
        for s in inert:
            print(f"no effect\t{s['type']}\t{s['member']}")
        for s in untested:
            print(f"untested\t{s['type']}\t{s['member']}")
    strict = len(present) - len(inert) - len(untested)
    total = len(symbols)
    print(f"declared {len(present)}, no effect {len(inert)}, named by no test {len(untested)}; "
          f"counted {strict} of {total} = {100.0 * strict / total:.1f}%")


if __name__ == '__main__':
    main(sys.argv[1:])
