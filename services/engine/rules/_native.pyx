# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled rules core: the move generator, the classifier's fast path and the auto-play
policy's common moves in C.

It follows moves.py line for line — the same tables (built once per variant by moves.py and
read here), the same order of plays, the same :class:`Play` and :class:`Pattern` objects — with
the hand held in C arrays (cards per rank, counts, a bit per rank held at least u times) and
each play's cards tuple written from a C buffer.  Anything unusual (a card that is not an int
in 0..53, cards the deck cannot hold, a reading or a play to beat for classify, a memo miss)
goes to the pure-Python code, which stays the reference and raises its own errors.
The policy (choose_play) answers leads, follows of a single, pair or triple, and bombs, and
hands anything else to policies.pure_choose_play.  tests/rules/test_native.py compares both
cores.
"""

from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM

from . import patterns as _patterns
from .cards import CARDS
from .kinds import Kind, SHAPES, Wings
from .patterns import Pattern, Play

cdef extern from "Python.h":
    object PyType_GenericAlloc(PyTypeObject* t, Py_ssize_t n)
    void PyObject_GC_UnTrack(void* o)

DEF NR = 15
DEF BJ = 13
DEF RJ = 14
DEF ACE = 11
DEF SUITED = 13

cdef tuple _CARDS = CARDS
cdef object _PLAY = Play
cdef object _PATTERN = Pattern
cdef object _py_classify = _patterns.classify
cdef object _beats = _patterns.beats
cdef object _py_legal = None  # moves.legal_plays (pure), set on first use
cdef object _moves = None
cdef list _KINDS = list(Kind)
cdef dict _KIND_CODE = {k: i for i, k in enumerate(_KINDS)}
cdef int K_BOMB = _KIND_CODE[Kind.BOMB]
cdef int K_ROCKET = _KIND_CODE[Kind.ROCKET]
cdef int K_SF = _KIND_CODE[Kind.STRAIGHT_FLUSH]
cdef int K_STRAIGHT = _KIND_CODE[Kind.STRAIGHT]
cdef int W_NONE = 0, W_CARDS = 1, W_PAIRS = 2
cdef object K_SINGLE_KIND = Kind.SINGLE
cdef object K_PAIR_KIND = Kind.PAIR
cdef object K_TRIPLE_KIND = Kind.TRIPLE
cdef object K_BOMB_KIND = Kind.BOMB
cdef object K_ROCKET_KIND = Kind.ROCKET
cdef object K_SF_KIND = Kind.STRAIGHT_FLUSH
cdef object K_STRAIGHT_KIND = Kind.STRAIGHT

# rank of every card id
cdef int RANK[54]
for _i in range(54):
    RANK[_i] = min(_i >> 2, 13) + (_i == 53)
# nibble weight of every card id, for the classifier's memo key (patterns._RANK_WEIGHT)
cdef unsigned long long NIBBLE[54]
for _i in range(54):
    NIBBLE[_i] = (<unsigned long long>1) << (4 * RANK[_i])


cdef inline object _cards_tuple(int* ids, int n):
    cdef object t = PyTuple_New(n)
    cdef object c
    cdef int i
    for i in range(n):
        c = _CARDS[ids[i]]
        Py_INCREF(c)
        PyTuple_SET_ITEM(t, i, c)
    # Cards (ints) cannot form a reference cycle: keep the tuple out of the collector's way,
    # as CPython itself would at its next collection (dozens of plays per call add up).
    PyObject_GC_UnTrack(<void*>t)
    return t


cdef inline object _play(object cards, object pattern):
    """A Play (a NamedTuple: a tuple subclass) without going through its __new__."""
    cdef object play = PyType_GenericAlloc(<PyTypeObject*>_PLAY, 2)
    Py_INCREF(cards)
    PyTuple_SET_ITEM(play, 0, cards)
    Py_INCREF(pattern)
    PyTuple_SET_ITEM(play, 1, pattern)
    PyObject_GC_UnTrack(<void*>play)  # cards and an interned Pattern: no cycle possible
    return play


cdef class _NT:
    """A variant's generator tables (moves._Tables) in the form this module reads."""

    cdef int nkinds
    cdef int kinds[20]
    cdef bint allowed[20]
    cdef int unit[20]
    cdef int chain[20]
    cdef int wings[20]
    cdef int wing_count[20]
    cdef int lo_len[20]
    cdef int hi_len[20]
    cdef list by_rank      # per kind code: list of NR patterns/None, or None
    cdef list high         # per kind code: list per length of list per start: (ranks, pattern)|None
    cdef list low          # per kind code: list per length of list of (mask, ranks, pattern)
    cdef int chain_bits
    cdef bint flushes
    cdef bint has_sf
    cdef int nbombs
    cdef int bomb_rank[128]
    cdef int bomb_size[128]
    cdef long bomb_order[128]
    cdef list bomb_pattern
    cdef int min_bomb
    cdef object rocket
    cdef int rc_b, rc_r
    cdef int bomb_min, decks, min_straight
    cdef bint aaa_bomb, jokers, one_deck_rocket
    cdef dict memo  # the classifier's memo (Variant.readings_memo)

    def __reduce__(self):
        # Kept on the variant (its __dict__) as a cache: a pickled variant carries none, and
        # rebuilds it on first use.
        return (_dropped, ())

    def __init__(self, v, t):
        cdef int code, k, i
        self.nkinds = len(t.kinds)
        self.by_rank = [None] * len(_KINDS)
        self.high = [None] * len(_KINDS)
        self.low = [None] * len(_KINDS)
        for i in range(20):
            self.allowed[i] = False
        for i, kind in enumerate(t.kinds):
            code = _KIND_CODE[kind]
            self.kinds[i] = code
            self.allowed[code] = True
        for kind in _KINDS:
            code = _KIND_CODE[kind]
            unit, chain, wings, wing_count = SHAPES[kind]
            self.unit[code] = unit
            self.chain[code] = 1 if chain else 0
            self.wings[code] = W_NONE if wings is Wings.NONE else (
                W_PAIRS if wings is Wings.PAIRS else W_CARDS)
            self.wing_count[code] = wing_count
            self.lo_len[code] = 0
            self.hi_len[code] = -1
        for kind, table in t.by_rank.items():
            self.by_rank[_KIND_CODE[kind]] = list(table)
        for kind, runs in t.chains.items():
            code = _KIND_CODE[kind]
            if runs.lengths:
                self.lo_len[code] = runs.lengths[0]
                self.hi_len[code] = max(runs.lengths)
            top = max(runs.lengths) if runs.lengths else 0
            high = [[None] * NR for _ in range(top + 1)]
            for (k, start), body in runs.high.items():
                high[k][start] = body
            low = [[] for _ in range(top + 1)]
            for k, entries in runs.low.items():
                for _mask, ranks, pattern in entries:
                    m = 0
                    for r in ranks:
                        m |= 1 << r
                    low[k].append((m, ranks, pattern))
            self.high[code] = high
            self.low[code] = low
        self.chain_bits = (1 << (len(v.runs) - 1)) - 1
        self.flushes = bool(t.flushes)
        self.has_sf = Kind.STRAIGHT_FLUSH in v.patterns
        if len(t.bombs) > 128:
            raise ValueError("too many bomb sizes")
        self.nbombs = len(t.bombs)
        self.bomb_pattern = []
        for i, (r, size, pattern) in enumerate(t.bombs):
            self.bomb_rank[i] = r
            self.bomb_size[i] = size
            self.bomb_order[i] = pattern.order
            self.bomb_pattern.append(pattern)
        self.min_bomb = t.min_bomb
        self.rocket = t.rocket
        rc = v.rocket_counts
        self.rc_b = rc[BJ] if rc is not None else 99
        self.rc_r = rc[RJ] if rc is not None else 99
        if rc is None:
            self.rocket = None
        self.bomb_min = v.bomb_min
        self.decks = v.decks
        self.min_straight = v.min_straight
        self.aaa_bomb = v.aaa_bomb
        self.jokers = v.jokers
        self.one_deck_rocket = v.jokers and v.decks == 1
        self.memo = v.readings_memo


def _dropped() -> None:
    return None


cdef _NT _tables(object v):
    global _moves, _py_legal
    cdef dict d = v.__dict__
    found = d.get("_native_tables")
    if found is None:
        if _moves is None:
            from . import moves
            _moves = moves
            _py_legal = moves.pure_legal_plays
        found = _NT(v, _moves._tables(v))
        d["_native_tables"] = found
    return <_NT>found


cdef struct Hand:
    int cnt[NR]
    int cid[NR][8]
    int have[9]   # have[u]: bit r set when the hand holds rank r at least u times
    int by_suit[4]


cdef struct Gen:
    # the play being built: how many cards of each rank it takes
    int take[NR]


cdef inline object _emit_take(Hand* h, int* take):
    cdef int buf[64]
    cdef int n = 0, r, k
    for r in range(NR):
        for k in range(take[r]):
            buf[n] = h.cid[r][k]
            n += 1
    return _cards_tuple(buf, n)


cdef inline bint _load_hand(_NT nt, object cards, Hand* h) except -1:
    """Fill ``h``; False when the pure code must handle ``cards`` (odd values, or cards the
    deck cannot hold: it raises, naming the card)."""
    cdef int mult[54]
    cdef int i, c, r, k, u
    cdef long x
    for i in range(54):
        mult[i] = 0
    for obj in cards:
        if not isinstance(obj, int):
            return False
        try:
            x = obj
        except OverflowError:
            return False
        if x < 0 or x >= 54:
            return False
        mult[x] += 1
    for i in range(NR):
        h.cnt[i] = 0
    for i in range(4):
        h.by_suit[i] = 0
    for c in range(54):
        k = mult[c]
        if k == 0:
            continue
        if k > nt.decks or (c >= 52 and not nt.jokers):
            return False
        r = RANK[c]
        while k:
            h.cid[r][h.cnt[r]] = c
            h.cnt[r] += 1
            k -= 1
        if r < SUITED:
            h.by_suit[c & 3] |= 1 << r
    for u in range(9):
        h.have[u] = 0
    for r in range(NR):
        for u in range(1, h.cnt[r] + 1):
            h.have[u] |= 1 << r
    h.have[0] = (1 << NR) - 1
    return True


cdef inline int _ctz(int x):
    cdef int n = 0
    while not (x & 1):
        x >>= 1
        n += 1
    return n


cdef list _chain_bodies(_NT nt, int have, int code, bint has_last, long last_order,
                        int last_length):
    cdef list found = []
    cdef int lo, hi, k, bits, starts, usable, lowest_start, start
    if has_last:
        lo = hi = last_length
    else:
        lo, hi = nt.lo_len[code], nt.hi_len[code]
    if hi < lo:
        return found
    cdef list low = nt.low[code]
    cdef list high = nt.high[code]
    if hi >= len(high):
        return found
    for k in range(lo, hi + 1):
        for entry in <list>low[k]:
            m = entry[0]
            if (m & have) == m and (not has_last or entry[2].order > last_order):
                found.append((entry[1], entry[2]))
    usable = have & nt.chain_bits
    starts = usable
    for k in range(2, hi + 1):
        starts &= usable >> (k - 1)
        if not starts:
            break
        if k < lo:
            continue
        bits = starts
        if has_last and last_order >= 0:
            lowest_start = <int>(last_order - k + 2)
            if lowest_start > 0:
                bits &= ~((1 << lowest_start) - 1)
        row = <list>high[k]
        while bits:
            start = _ctz(bits)
            body = row[start]
            if body is not None:
                found.append(body)
            bits &= bits - 1
    return found


cdef void _bombs(_NT nt, Hand* h, object last, list out) except *:
    if nt.min_bomb > 8 or not h.have[nt.min_bomb]:
        return
    cdef long floor = -1
    cdef int i, r, size
    if last is not None and last.kind is Kind.BOMB:
        floor = last.order
    for i in range(nt.nbombs):
        r = nt.bomb_rank[i]
        size = nt.bomb_size[i]
        if h.cnt[r] >= size and nt.bomb_order[i] > floor:
            out.append(_play(_cards_tuple(h.cid[r], size), nt.bomb_pattern[i]))


cdef void _rocket(_NT nt, Hand* h, list out) except *:
    cdef int buf[8]
    cdef int n = 0, k
    if nt.rocket is None:
        return
    if h.cnt[BJ] >= nt.rc_b and h.cnt[RJ] >= nt.rc_r:
        for k in range(nt.rc_b):
            buf[n] = h.cid[BJ][k]
            n += 1
        for k in range(nt.rc_r):
            buf[n] = h.cid[RJ][k]
            n += 1
        out.append(_play(_cards_tuple(buf, n), nt.rocket))


cdef void _straight_flushes(_NT nt, Hand* h, object last, list out) except *:
    cdef bint has_last = last is not None
    cdef long order = 0
    cdef int length = 0, suit, n, i
    cdef int buf[16]
    if has_last:
        if last.kind is not Kind.STRAIGHT and last.kind is not Kind.STRAIGHT_FLUSH:
            return
        length = last.length
        order = -(1 << 30) if last.kind is Kind.STRAIGHT else last.order
    for suit in range(4):
        if h.by_suit[suit]:
            for ranks, pattern in _chain_bodies(nt, h.by_suit[suit], K_SF, has_last, order,
                                                length):
                n = 0
                for r in ranks:
                    buf[n] = (<int>r) * 4 + suit
                    n += 1
                out.append(_play(_cards_tuple(buf, n), pattern))


cdef bint _may_be_one_suit(_NT nt, Hand* h):
    cdef int per_suit[4]
    cdef int r, best = 0
    per_suit[0] = per_suit[1] = per_suit[2] = per_suit[3] = 0
    for r in range(SUITED):
        if h.cnt[r]:
            per_suit[h.cid[r][0] & 3] += 1
    for r in range(4):
        if per_suit[r] > best:
            best = per_suit[r]
    return best >= nt.min_straight


cdef void _generate(_NT nt, Hand* h, int code, object last, list out) except *:
    cdef int unit, chain, wings, wing_count, r, n, i, k, lo
    cdef int buf[64]
    cdef int take[NR]
    cdef bint check_suits, one
    cdef list bodies
    if code == K_BOMB:
        _bombs(nt, h, last, out)
        return
    if code == K_ROCKET:
        _rocket(nt, h, out)
        return
    if code == K_SF:
        _straight_flushes(nt, h, last, out)
        return
    unit = nt.unit[code]
    chain = nt.chain[code]
    wings = nt.wings[code]
    wing_count = nt.wing_count[code]
    cdef bint has_last = last is not None
    if chain:
        if has_last:
            bodies = _chain_bodies(nt, h.have[unit], code, True, last.order, last.length)
        else:
            bodies = _chain_bodies(nt, h.have[unit], code, False, 0, 0)
        if not bodies:
            return
    if wings == W_NONE and not chain:
        table = <list>nt.by_rank[code]
        lo = 0 if not has_last else <int>(last.order + 1)
        if lo < 0:
            lo = 0
        for r in range(lo, NR):
            if h.cnt[r] >= unit:
                p = table[r]
                if p is not None:
                    out.append(_play(_cards_tuple(h.cid[r], unit), p))
        return
    if wings == W_NONE:
        check_suits = code == K_STRAIGHT and nt.flushes and _may_be_one_suit(nt, h)
        for ranks, pattern in bodies:
            n = 0
            for rr in ranks:
                r = rr
                for k in range(unit):
                    buf[n] = h.cid[r][k]
                    n += 1
            if check_suits:
                one = True
                for i in range(1, n):
                    if (buf[i] & 3) != (buf[0] & 3):
                        one = False
                        break
                if one and not _plain_straight(h, buf, n, ranks):
                    continue
            out.append(_play(_cards_tuple(buf, n), pattern))
        return
    if not chain:
        table = <list>nt.by_rank[code]
        lo = 0 if not has_last else <int>(last.order + 1)
        if lo < 0:
            lo = 0
        bodies = []
        for r in range(lo, NR):
            if h.cnt[r] >= unit:
                p = table[r]
                if p is not None:
                    bodies.append(((r,), p))
        if not bodies:
            return
    cdef bint dedup = chain and wings == W_CARDS and has_last
    cdef dict seen = {} if dedup else None
    for r in range(NR):
        take[r] = 0
    for ranks, pattern in bodies:
        for rr in ranks:
            take[<int>rr] = unit
        n = (<int>pattern.length) * wing_count
        if wings == W_PAIRS:
            _pair_wings(nt, h, take, n, pattern, out, seen)
        else:
            _card_wings(nt, h, take, n, pattern, out, seen)
        for rr in ranks:
            take[<int>rr] = 0


cdef bint _plain_straight(Hand* h, int* buf, int n, object ranks):
    """Rewrite buf (one card per rank, all one suit) as a straight that is not a straight
    flush; False when every choice is one suit."""
    cdef int suit = buf[0] & 3
    cdef int i, k, r, c
    cdef list rs = list(ranks)
    for i in range(n - 1, -1, -1):
        r = rs[i]
        for k in range(h.cnt[r]):
            c = h.cid[r][k]
            if (c & 3) != suit:
                buf[i] = c
                return True
    return False


cdef inline void _add(Hand* h, int* take, object pattern, list out, dict seen) except *:
    cards = _emit_take(h, take)
    if seen is None:
        out.append(_play(cards, pattern))
        return
    at = seen.get(cards)
    if at is None:
        seen[cards] = len(out)
        out.append(_play(cards, pattern))
    elif pattern.order > out[<Py_ssize_t>at][1].order:
        out[<Py_ssize_t>at] = _play(cards, pattern)


cdef void _pair_wings(_NT nt, Hand* h, int* take, int n, object pattern, list out,
                      dict seen) except *:
    cdef int options[NR]
    cdef int idx[NR]
    cdef int m = 0, r, i, j
    for r in range(NR):
        if h.cnt[r] >= 2 and take[r] == 0:
            options[m] = r
            m += 1
    if n > m or n <= 0:
        if n == 0:
            _add(h, take, pattern, out, seen)
        return
    # combinations(options, n) in lexicographic order
    for i in range(n):
        idx[i] = i
    while True:
        if not (options[idx[n - 1]] == RJ and _has_bj(options, idx, n)):
            for i in range(n):
                take[options[idx[i]]] = 2
            _add(h, take, pattern, out, seen)
            for i in range(n):
                take[options[idx[i]]] = 0
        i = n - 1
        while i >= 0 and idx[i] == i + m - n:
            i -= 1
        if i < 0:
            return
        idx[i] += 1
        for j in range(i + 1, n):
            idx[j] = idx[j - 1] + 1


cdef inline bint _has_bj(int* options, int* idx, int n):
    cdef int i
    for i in range(n):
        if options[idx[i]] == BJ:
            return True
    return False


cdef void _card_wings(_NT nt, Hand* h, int* take, int n, object pattern, list out,
                      dict seen) except *:
    cdef int cr[NR]
    cdef int cc[NR]
    cdef int m = 0, r, c, cap, cap_all = nt.bomb_min - 1, i, j
    for r in range(NR):
        c = h.cnt[r]
        if c and take[r] == 0:
            cap = c if c < cap_all else cap_all
            if r == ACE and nt.aaa_bomb and cap > 2:
                cap = 2
            cr[m] = r
            cc[m] = cap
            m += 1
    if n == 1:
        for i in range(m):
            take[cr[i]] = 1
            _add(h, take, pattern, out, seen)
            take[cr[i]] = 0
        return
    if n == 2:
        for i in range(m):
            if cc[i] >= 2:
                take[cr[i]] = 2
                _add(h, take, pattern, out, seen)
                take[cr[i]] = 0
        for i in range(m):
            take[cr[i]] = 1
            for j in range(i + 1, m):
                if cr[j] == RJ and cr[i] == BJ and nt.one_deck_rocket:
                    continue
                take[cr[j]] = 1
                _add(h, take, pattern, out, seen)
                take[cr[j]] = 0
            take[cr[i]] = 0
        return
    cdef int chosen_r[NR]
    cdef int chosen_t[NR]
    _rec(nt, h, take, cr, cc, m, 0, n, chosen_r, chosen_t, 0, pattern, out, seen)


cdef void _rec(_NT nt, Hand* h, int* take, int* cr, int* cc, int m, int i, int left,
               int* chosen_r, int* chosen_t, int nchosen, object pattern, list out,
               dict seen) except *:
    cdef int j, t, top
    if left == 0:
        if (nt.jokers and nchosen >= 2 and chosen_r[nchosen - 1] == RJ
                and chosen_r[nchosen - 2] == BJ and chosen_t[nchosen - 2] == nt.decks
                and chosen_t[nchosen - 1] == nt.decks):
            return
        _add(h, take, pattern, out, seen)
        return
    for j in range(i, m):
        top = cc[j] if cc[j] < left else left
        for t in range(top, 0, -1):
            chosen_r[nchosen] = cr[j]
            chosen_t[nchosen] = t
            take[cr[j]] = t
            _rec(nt, h, take, cr, cc, m, j + 1, left - t, chosen_r, chosen_t, nchosen + 1,
                 pattern, out, seen)
            take[cr[j]] = 0


def legal_plays(v, hand, last=()):
    """moves.legal_plays, compiled (same arguments, same result)."""
    cdef _NT nt = _tables(v)
    cdef Hand h
    if type(last) is _PLAY or isinstance(last, Play):
        last_pattern = last[1]
    elif type(last) is _PATTERN or isinstance(last, Pattern):
        last_pattern = last
    else:
        last_pattern = classify(v, last) if last else None
    if not _load_hand(nt, hand, &h):
        return _py_legal(v, hand, last_pattern if last_pattern is not None else ())
    cdef list out = []
    cdef int i, code
    if last_pattern is None:
        for i in range(nt.nkinds):
            _generate(nt, &h, nt.kinds[i], None, out)
        return tuple(out)
    kind = last_pattern.kind
    if kind is Kind.ROCKET:
        return ()
    if kind is not Kind.BOMB:
        code = _KIND_CODE[kind]
        if not nt.allowed[code]:
            return _py_legal(v, hand, last_pattern)  # a kind this game lacks: as the pure code
        _generate(nt, &h, code, last_pattern, out)
        if kind is Kind.STRAIGHT and nt.has_sf:
            _straight_flushes(nt, &h, last_pattern, out)
    _bombs(nt, &h, last_pattern, out)
    _rocket(nt, &h, out)
    return tuple(out)


def count_plays(v, hand, last=()):
    return len(legal_plays(v, hand, last))


cdef bint _c_beats(tuple play, tuple last) except -1:
    """patterns.beats(play, last) for two patterns (tuples: kind, rank, length, size, low,
    order), last not None."""
    pk, lk = play[0], last[0]
    if pk is K_ROCKET_KIND:
        return lk is not K_ROCKET_KIND
    if lk is K_ROCKET_KIND:
        return False
    if pk is K_BOMB_KIND:
        return lk is not K_BOMB_KIND or play[5] > last[5]
    if lk is K_BOMB_KIND or play[3] != last[3]:
        return False
    if pk is lk:
        return play[5] > last[5]
    return pk is K_SF_KIND and lk is K_STRAIGHT_KIND


def classify(v, cards, reading=None, last=None):
    """patterns.classify, with the common case (no reading, no play to beat, a memo hit)
    answered here; everything else is the pure function's."""
    cdef unsigned long long key = 0, seen1 = 0, seen2 = 0, bit
    cdef long x
    cdef int n = 0, suit = -1
    cdef bint one_suit = True
    cdef _NT nt
    if reading is not None:
        return _py_classify(v, cards, reading, last)
    found = v.__dict__.get("_native_tables")
    nt = <_NT>found if found is not None else _tables(v)
    for obj in cards:
        if not isinstance(obj, int):
            return _py_classify(v, cards)
        try:
            x = obj
        except OverflowError:
            return _py_classify(v, cards)
        if x < 0 or x >= 54:
            return _py_classify(v, cards)
        bit = (<unsigned long long>1) << x
        if seen1 & bit:
            if seen2 & bit:
                return _py_classify(v, cards)  # three copies: the pure code decides
            seen2 |= bit
        else:
            seen1 |= bit
        key += NIBBLE[x]
        if suit < 0:
            suit = x & 3
        elif (x & 3) != suit:
            one_suit = False
        n += 1
    if n == 0 or (seen2 and nt.decks < 2) or (not nt.jokers and (seen1 >> 52)):
        return _py_classify(v, cards, None, last)  # raises, naming the card or the reason
    entry = nt.memo.get(key)
    if entry is None:
        return _py_classify(v, cards, None, last)  # fills the memo
    best = (<tuple>entry)[1]
    if best is None:
        return _py_classify(v, cards, None, last)  # raises NotAPattern with the reason
    flush = (<tuple>entry)[2]
    if flush is not None and one_suit:
        return flush
    if last is None:
        return best
    # A follow: one reading that beats is the answer; anything else (several readings, or
    # none that beats, which raises) is the pure code's.
    found = (<tuple>entry)[0]
    if len(<tuple>found) == 1:
        if type(last) is _PATTERN:
            if _c_beats(<tuple>best, <tuple>last):
                return best
        elif _beats(best, last):
            return best
    return _py_classify(v, cards, None, last)


# ------------------------------------------------------------------ the auto-play policy
cdef object _py_choose = None  # policies.pure_choose_play, set on first use
cdef object _RulesError = None


cdef object _pure_choose(v, hand, last, no_bombs, must_hold):
    global _py_choose
    if _py_choose is None:
        from . import policies
        _py_choose = policies.pure_choose_play
    return _py_choose(v, hand, last, no_bombs=no_bombs, must_hold=must_hold)


cdef inline bint _bomb_rank(_NT nt, int r, int count):
    # policies._is_bomb_rank
    if r >= BJ:
        return False
    return count >= nt.bomb_min or (nt.aaa_bomb and r == ACE and count >= 3)


def choose_play(v, hand, last, *, no_bombs=False, must_hold=None):
    """policies.choose_play, compiled for the moves self-play makes all the time: a lead of
    the lowest plain rank, a follow of a single, pair or triple, a bomb or rocket over the
    play to beat.  Anything else (a lead that must hold a card, a follow of another kind, a
    lead of bombs only, a hand the generator hands to the pure code) is the pure function's."""
    global _RulesError
    cdef _NT nt = _tables(v)
    cdef Hand h
    cdef int r, c, unit, lo, i, best
    cdef long floor
    cdef bint rocket
    if must_hold is not None or not _load_hand(nt, hand, &h):
        return _pure_choose(v, hand, last, no_bombs, must_hold)
    rocket = h.cnt[BJ] >= nt.rc_b and h.cnt[RJ] >= nt.rc_r  # policies._holds_rocket
    if last is None:
        # policies._lead: every card of the lowest rank that is not a bomb (nor rocket jokers)
        for r in range(NR):
            c = h.cnt[r]
            if c == 0 or _bomb_rank(nt, r, c) or (r >= BJ and rocket):
                continue
            cards = _cards_tuple(h.cid[r], c)
            if _RulesError is None:
                from .errors import RulesError
                _RulesError = RulesError
            try:
                pattern = classify(v, cards)
            except _RulesError:
                break  # the variant lacks this plain kind: the pure code's general rule
            return _play(cards, pattern)
        return _pure_choose(v, hand, last, no_bombs, must_hold)
    kind = last.kind
    if kind is K_SINGLE_KIND:
        unit = 1
    elif kind is K_PAIR_KIND:
        unit = 2
    elif kind is K_TRIPLE_KIND:
        unit = 3
    elif kind is K_BOMB_KIND or kind is K_ROCKET_KIND:
        unit = 0
    else:
        return _pure_choose(v, hand, last, no_bombs, must_hold)
    if unit:
        lo = <int>last.order + 1
        if lo < 0:
            lo = 0
        # The generator's interned pattern of the kind at rank r is the pure code's
        # Pattern(kind, r, 1, unit, False, r) (the table lacks only what no hand can play).
        table = nt.by_rank[_KIND_CODE[kind]]
        for r in range(lo, NR):
            if h.cnt[r] >= unit and not (r == ACE and unit == 3 and nt.aaa_bomb):
                pattern = None if table is None else (<list>table)[r]
                if pattern is None:
                    pattern = _PATTERN(kind, r, 1, unit, False, r)
                return _play(_cards_tuple(h.cid[r], unit), pattern)
    if no_bombs:
        return None
    # policies._bombs(...)[0]: the bomb or rocket of least order that beats ``last``
    # (nt.bomb_* is sorted by order; a rocket's order is above every bomb's).
    if kind is K_ROCKET_KIND:
        return None
    floor = last.order if kind is K_BOMB_KIND else -1
    for i in range(nt.nbombs):
        r = nt.bomb_rank[i]
        if h.cnt[r] >= nt.bomb_size[i] and nt.bomb_order[i] > floor:
            return _play(_cards_tuple(h.cid[r], nt.bomb_size[i]), nt.bomb_pattern[i])
    if nt.rocket is not None and rocket:
        out = []
        _rocket(nt, &h, out)
        return out[0]
    return None
