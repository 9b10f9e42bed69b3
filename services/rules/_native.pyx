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

from cpython cimport array
from cpython.long cimport PyLong_FromUnsignedLongLong
from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

import array as _array

from . import patterns as _patterns
from .cards import CARDS
from .errors import RulesError as _RULES_ERROR
from .kinds import Kind, SHAPES, Wings
from .patterns import Pattern, Play

cdef extern from *:
    int __builtin_ctzll(unsigned long long x) nogil

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
cdef object _py_ids = None  # moves.pure_legal_ids
cdef object _py_from_id = None  # moves.pure_play_from_id
cdef array.array _U64 = _array.array("Q")
ctypedef unsigned long long u64
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
    cdef list low          # per kind code: list per length of (mask, ranks, pattern, number)
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
    # move ids (moves.play_id): a card's weight in the id's low and high 64 bits, where the
    # pattern number goes, and each interned pattern's number
    cdef int by_rank_idx[20][NR]
    cdef int bomb_idx[128]
    cdef int rocket_idx
    cdef u64 wlo[54]
    cdef u64 whi[54]
    cdef int pshift
    cdef bint narrow      # ids fit 64 bits: legal_ids answers an array('Q')
    cdef bint ids_in_c    # ids fit 128 bits: this module builds them (else the pure code)
    cdef tuple patterns
    cdef int high_idx[20][17][NR]  # per kind code, run length and start: -1 or its number
    cdef long* porder   # per pattern number: its order and length
    cdef int* plength

    def __dealloc__(self):
        free(self.porder)
        free(self.plength)

    def __reduce__(self):
        # Kept on the variant (its __dict__) as a cache: a pickled variant carries none, and
        # rebuilds it on first use.
        return (_dropped, ())

    def __init__(self, v, t):
        cdef int code, k, i
        self.nkinds = len(t.kinds)
        self.by_rank = [None] * len(_KINDS)
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
        index = t.pattern_index
        for code in range(20):
            for i in range(NR):
                self.by_rank_idx[code][i] = -1
                for k in range(17):
                    self.high_idx[code][k][i] = -1
        self.porder = <long*>malloc(max(1, len(t.patterns)) * sizeof(long))
        self.plength = <int*>malloc(max(1, len(t.patterns)) * sizeof(int))
        if self.porder == NULL or self.plength == NULL:
            raise MemoryError()
        for i, p in enumerate(t.patterns):
            self.porder[i] = p.order
            self.plength[i] = p.length
        for kind, table in t.by_rank.items():
            self.by_rank[_KIND_CODE[kind]] = list(table)
            for i, p in enumerate(table):
                if p is not None:
                    self.by_rank_idx[_KIND_CODE[kind]][i] = index[p]
        for kind, runs in t.chains.items():
            code = _KIND_CODE[kind]
            if runs.lengths:
                self.lo_len[code] = runs.lengths[0]
                self.hi_len[code] = max(runs.lengths)
            top = max(runs.lengths) if runs.lengths else 0
            for (k, start), (ranks, pattern) in runs.high.items():
                if ranks != tuple(range(start, start + k)) or k > 16:
                    raise ValueError(f"{kind}: a high-order run that is not start..start+k-1")
                self.high_idx[code][k][start] = index[pattern]
            low = [[] for _ in range(top + 1)]
            for k, entries in runs.low.items():
                for _mask, ranks, pattern in entries:
                    m = 0
                    for r in ranks:
                        m |= 1 << r
                    low[k].append((m, ranks, pattern, index[pattern]))
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
            self.bomb_idx[i] = index[pattern]
            self.bomb_pattern.append(pattern)
        self.min_bomb = t.min_bomb
        self.rocket = t.rocket
        rc = v.rocket_counts
        self.rc_b = rc[BJ] if rc is not None else 99
        self.rc_r = rc[RJ] if rc is not None else 99
        if rc is None:
            self.rocket = None
        self.rocket_idx = index[t.rocket] if t.rocket is not None else -1
        self.patterns = t.patterns
        self.narrow = t.narrow
        self.pshift = t.pattern_shift
        self.ids_in_c = t.card_width <= 2 and t.pattern_shift + len(t.patterns).bit_length() <= 128
        for i in range(54):
            at = t.card_width * i
            self.wlo[i] = (1 << at) if at < 64 else 0
            self.whi[i] = (1 << (at - 64)) if 64 <= at < 128 else 0
        self.bomb_min = v.bomb_min
        self.decks = v.decks
        self.min_straight = v.min_straight
        self.aaa_bomb = v.aaa_bomb
        self.jokers = v.jokers
        self.one_deck_rocket = v.jokers and v.decks == 1
        self.memo = v.readings_memo


def _dropped() -> None:
    return None


cdef object _last_variant = None  # the variant of the last call, and its tables: most calls
cdef _NT _last_tables = None     # in a row are for one variant (held, so never recycled)


cdef inline _NT _tables(object v):
    global _last_variant, _last_tables
    if v is _last_variant:
        return _last_tables
    found = _tables_of(v)
    _last_variant, _last_tables = v, found
    return found


cdef _NT _tables_of(object v):
    global _moves, _py_legal, _py_ids, _py_from_id
    cdef dict d = v.__dict__
    found = d.get("_native_tables")
    if found is None:
        if _moves is None:
            from . import moves
            _moves = moves
            _py_legal = moves.pure_legal_plays
            _py_ids = moves.pure_legal_ids
            _py_from_id = moves.pure_play_from_id
        found = _NT(v, _moves._tables(v))
        d["_native_tables"] = found
    return <_NT>found


cdef class _Sink:
    """Where the generator puts what it finds: Play objects in a list (legal_plays), or move
    ids in C arrays, their low and high 64 bits (legal_ids).  One of each is reused call
    after call; ``busy`` while a call fills it (a collection during the call may run Python
    code, and so another thread's call: that one gets a sink of its own)."""

    cdef bint ids
    cdef bint busy
    cdef list plays
    cdef dict seen  # a follow of a card-kicker plane: cards -> where they are in the output
    cdef u64* lo
    cdef u64* hi
    cdef Py_ssize_t n, cap

    def __dealloc__(self):
        free(self.lo)
        free(self.hi)

    cdef int push(self, u64 lo, u64 hi) except -1:
        cdef Py_ssize_t cap
        cdef u64* grown
        if self.n == self.cap:
            cap = 2 * self.cap if self.cap else 256
            grown = <u64*>realloc(self.lo, cap * sizeof(u64))
            if grown == NULL:
                raise MemoryError()
            self.lo = grown
            grown = <u64*>realloc(self.hi, cap * sizeof(u64))
            if grown == NULL:
                raise MemoryError()
            self.hi = grown
            self.cap = cap
        self.lo[self.n] = lo
        self.hi[self.n] = hi
        self.n += 1
        return 0


cdef _Sink _PLAYS_SINK = _Sink()
cdef _Sink _IDS_SINK = _Sink()
_IDS_SINK.ids = True


cdef inline void _with_pattern(_NT nt, int pidx, u64* lo, u64* hi):
    cdef u64 p = <u64>pidx
    if nt.pshift >= 64:
        hi[0] |= p << (nt.pshift - 64)
    else:
        lo[0] |= p << nt.pshift
        hi[0] |= p >> (64 - nt.pshift)


cdef inline int _put(_NT nt, _Sink s, int* ids, int n, int pidx) except -1:
    """One play: the cards ``ids[:n]`` (sorted) read as the interned pattern number pidx."""
    cdef u64 lo = 0, hi = 0
    cdef int i
    if not s.ids:
        s.plays.append(_play(_cards_tuple(ids, n), nt.patterns[pidx]))
        return 0
    for i in range(n):
        lo += nt.wlo[ids[i]]
        hi += nt.whi[ids[i]]
    _with_pattern(nt, pidx, &lo, &hi)
    return s.push(lo, hi)


cdef object _ids_result(_NT nt, _Sink s):
    cdef array.array out
    cdef Py_ssize_t i
    if nt.narrow:
        out = array.clone(_U64, s.n, False)
        if s.n:
            memcpy(out.data.as_ulonglongs, s.lo, s.n * sizeof(u64))
        return out
    t = PyTuple_New(s.n)
    for i in range(s.n):
        x = (PyLong_FromUnsignedLongLong(s.hi[i]) << 64) | PyLong_FromUnsignedLongLong(s.lo[i])
        Py_INCREF(x)
        PyTuple_SET_ITEM(t, i, x)
    return t


cdef struct Hand:
    int cnt[NR]
    int cid[NR][8]
    int have[9]   # have[u]: bit r set when the hand holds rank r at least u times
    int by_suit[4]
    u64 lo[NR][9]  # lo[r][k], hi[r][k]: the move-id weight of rank r's lowest k cards
    u64 hi[NR][9]


DEF MAX_BODIES = 256
DEF MAX_RUN = 16


cdef struct Bodies:
    # the bodies a kind's plays are built on (a rank, or a run of ranks), in the order of
    # moves._rank_bodies / moves._chain_bodies: their pattern numbers and ranks
    int n
    int pidx[MAX_BODIES]
    int nranks[MAX_BODIES]
    int ranks[MAX_BODIES][MAX_RUN]


cdef inline int _body(Bodies* b, int pidx, int start, int k) except -1:
    """Add the high-order run start..start+k-1 (k = 1: the rank ``start``)."""
    cdef int i
    if b.n == MAX_BODIES:
        raise OverflowError("too many bodies")
    b.pidx[b.n] = pidx
    b.nranks[b.n] = k
    for i in range(k):
        b.ranks[b.n][i] = start + i
    b.n += 1
    return 0


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
    cdef u64 seen1 = 0, seen2 = 0, bit, left
    cdef int i, c, r, u
    cdef long x
    for obj in cards:
        if not isinstance(obj, int):
            return False
        try:
            x = obj
        except OverflowError:
            return False
        if x < 0 or x >= 54:
            return False
        bit = (<u64>1) << x
        if seen1 & bit:
            if seen2 & bit:
                return False  # three copies: no deck of this module's holds them
            seen2 |= bit
        else:
            seen1 |= bit
    if (seen2 and nt.decks < 2) or (not nt.jokers and (seen1 >> 52)):
        return False
    for i in range(NR):
        h.cnt[i] = 0
        h.lo[i][0] = h.hi[i][0] = 0
    for i in range(4):
        h.by_suit[i] = 0
    for u in range(9):
        h.have[u] = 0
    h.have[0] = (1 << NR) - 1
    # card ids ascending: each rank's cards come sorted, both copies of a card together
    left = seen1
    while left:
        c = __builtin_ctzll(left)
        r = RANK[c]
        u = h.cnt[r]
        h.cid[r][u] = c
        h.have[u + 1] |= 1 << r
        h.lo[r][u + 1] = h.lo[r][u] + nt.wlo[c]
        h.hi[r][u + 1] = h.hi[r][u] + nt.whi[c]
        if (seen2 >> c) & 1:
            h.cid[r][u + 1] = c
            h.have[u + 2] |= 1 << r
            h.lo[r][u + 2] = h.lo[r][u + 1] + nt.wlo[c]
            h.hi[r][u + 2] = h.hi[r][u + 1] + nt.whi[c]
            u += 1
        h.cnt[r] = u + 1
        if r < SUITED:
            h.by_suit[c & 3] |= 1 << r
        left &= left - 1
    return True


cdef inline int _kind_code(object kind):
    # Kind hashes in Python (Enum.__hash__): find it by identity instead.
    cdef int i
    for i in range(len(_KINDS)):
        if <object>_KINDS[i] is kind:
            return i
    return -1


cdef int _chain_bodies(_NT nt, int have, int code, bint has_last, long last_order,
                       int last_length, Bodies* b) except -1:
    """moves._chain_bodies into ``b``."""
    cdef int lo, hi, k, bits, starts, usable, lowest_start, start, pidx, i
    b.n = 0
    if has_last:
        lo = hi = last_length
    else:
        lo, hi = nt.lo_len[code], nt.hi_len[code]
    if hi < lo or hi > MAX_RUN:
        return 0
    cdef list low = nt.low[code]
    if low is not None:
        for k in range(lo, hi + 1):
            if k >= len(low):
                break
            for entry in <list>low[k]:
                m = entry[0]
                if (m & have) == m and (not has_last or nt.porder[<int>entry[3]] > last_order):
                    if b.n == MAX_BODIES:
                        raise OverflowError("too many bodies")
                    b.pidx[b.n] = entry[3]
                    b.nranks[b.n] = len(<tuple>entry[1])
                    for i, r in enumerate(<tuple>entry[1]):
                        b.ranks[b.n][i] = r
                    b.n += 1
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
        while bits:
            start = __builtin_ctzll(bits)
            pidx = nt.high_idx[code][k][start]
            if pidx >= 0:
                _body(b, pidx, start, k)
            bits &= bits - 1
    return 0


cdef int _bombs(_NT nt, Hand* h, object last, _Sink out) except -1:
    if nt.min_bomb > 8 or not h.have[nt.min_bomb]:
        return 0
    cdef long floor = -1
    cdef int i, r, size
    if last is not None and (<tuple>last)[0] is K_BOMB_KIND:
        floor = (<tuple>last)[5]
    for i in range(nt.nbombs):
        r = nt.bomb_rank[i]
        size = nt.bomb_size[i]
        if h.cnt[r] >= size and nt.bomb_order[i] > floor:
            _put(nt, out, h.cid[r], size, nt.bomb_idx[i])


cdef int _rocket(_NT nt, Hand* h, _Sink out) except -1:
    cdef int buf[8]
    cdef int n = 0, k
    if nt.rocket is None:
        return 0
    if h.cnt[BJ] >= nt.rc_b and h.cnt[RJ] >= nt.rc_r:
        for k in range(nt.rc_b):
            buf[n] = h.cid[BJ][k]
            n += 1
        for k in range(nt.rc_r):
            buf[n] = h.cid[RJ][k]
            n += 1
        _put(nt, out, buf, n, nt.rocket_idx)


cdef int _straight_flushes(_NT nt, Hand* h, object last, _Sink out) except -1:
    cdef bint has_last = last is not None
    cdef long order = 0
    cdef int length = 0, suit, n, i, j
    cdef int buf[16]
    cdef Bodies b
    if has_last:
        kind = (<tuple>last)[0]
        if kind is not K_STRAIGHT_KIND and kind is not K_SF_KIND:
            return 0
        length = (<tuple>last)[2]
        order = -(1 << 30) if kind is K_STRAIGHT_KIND else (<tuple>last)[5]
    for suit in range(4):
        if h.by_suit[suit]:
            _chain_bodies(nt, h.by_suit[suit], K_SF, has_last, order, length, &b)
            for j in range(b.n):
                n = b.nranks[j]
                for i in range(n):
                    buf[i] = b.ranks[j][i] * 4 + suit
                _put(nt, out, buf, n, b.pidx[j])
    return 0


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


cdef int _generate(_NT nt, Hand* h, int code, object last, _Sink out) except -1:
    cdef int unit, chain, wings, wing_count, r, n, i, j, k, lo, pidx
    cdef int buf[64]
    cdef int take[NR]
    cdef bint check_suits, one
    cdef Bodies b
    cdef long last_order = 0
    cdef int last_length = 0
    if code == K_BOMB:
        _bombs(nt, h, last, out)
        return 0
    if code == K_ROCKET:
        _rocket(nt, h, out)
        return 0
    if code == K_SF:
        _straight_flushes(nt, h, last, out)
        return 0
    unit = nt.unit[code]
    chain = nt.chain[code]
    wings = nt.wings[code]
    wing_count = nt.wing_count[code]
    cdef bint has_last = last is not None
    if has_last:
        last_length = (<tuple>last)[2]
        last_order = (<tuple>last)[5]
    if chain:
        _chain_bodies(nt, h.have[unit], code, has_last, last_order, last_length, &b)
        if not b.n:
            return 0
    else:
        lo = 0 if not has_last else <int>(last_order + 1)
        if lo < 0:
            lo = 0
        if wings == W_NONE:
            for r in range(lo, NR):
                if h.cnt[r] >= unit:
                    pidx = nt.by_rank_idx[code][r]
                    if pidx >= 0:
                        _put(nt, out, h.cid[r], unit, pidx)
            return 0
        b.n = 0
        for r in range(lo, NR):
            if h.cnt[r] >= unit:
                pidx = nt.by_rank_idx[code][r]
                if pidx >= 0:
                    _body(&b, pidx, r, 1)
        if not b.n:
            return 0
    if wings == W_NONE:
        check_suits = code == K_STRAIGHT and nt.flushes and _may_be_one_suit(nt, h)
        for j in range(b.n):
            n = 0
            for i in range(b.nranks[j]):
                r = b.ranks[j][i]
                for k in range(unit):
                    buf[n] = h.cid[r][k]
                    n += 1
            if check_suits:
                one = True
                for i in range(1, n):
                    if (buf[i] & 3) != (buf[0] & 3):
                        one = False
                        break
                if one and not _plain_straight(h, buf, n, b.ranks[j]):
                    continue
            _put(nt, out, buf, n, b.pidx[j])
        return 0
    cdef bint dedup = chain and wings == W_CARDS and has_last
    out.seen = {} if dedup else None
    for r in range(NR):
        take[r] = 0
    for j in range(b.n):
        for i in range(b.nranks[j]):
            take[b.ranks[j][i]] = unit
        n = nt.plength[b.pidx[j]] * wing_count
        if wings == W_PAIRS:
            _pair_wings(nt, h, take, n, b.pidx[j], out)
        else:
            _card_wings(nt, h, take, n, b.pidx[j], out)
        for i in range(b.nranks[j]):
            take[b.ranks[j][i]] = 0
    out.seen = None
    return 0


cdef bint _plain_straight(Hand* h, int* buf, int n, int* ranks):
    """Rewrite buf (one card per rank, all one suit) as a straight that is not a straight
    flush; False when every choice is one suit."""
    cdef int suit = buf[0] & 3
    cdef int i, k, r, c
    for i in range(n - 1, -1, -1):
        r = ranks[i]
        for k in range(h.cnt[r]):
            c = h.cid[r][k]
            if (c & 3) != suit:
                buf[i] = c
                return True
    return False


cdef inline int _add(_NT nt, Hand* h, int* take, int pidx, _Sink out) except -1:
    """One play: take[r] cards of each rank r, the lowest the hand holds (out.seen: keep one
    play per set of cards, the reading of highest order)."""
    cdef dict seen = out.seen
    cdef u64 lo = 0, hi = 0
    cdef int r, k, c
    cdef Py_ssize_t at
    if not out.ids:
        cards = _emit_take(h, take)
        if seen is None:
            out.plays.append(_play(cards, nt.patterns[pidx]))
            return 0
        found = seen.get(cards)
        if found is None:
            seen[cards] = (len(out.plays), pidx)
            out.plays.append(_play(cards, nt.patterns[pidx]))
        elif nt.porder[pidx] > nt.porder[<int>found[1]]:
            at = found[0]
            seen[cards] = (at, pidx)
            out.plays[at] = _play(cards, nt.patterns[pidx])
        return 0
    for r in range(NR):
        lo += h.lo[r][take[r]]
        hi += h.hi[r][take[r]]
    if seen is None:
        _with_pattern(nt, pidx, &lo, &hi)
        out.push(lo, hi)
        return 0
    key = (lo, hi)
    found = seen.get(key)
    if found is None:
        seen[key] = (out.n, pidx)
        _with_pattern(nt, pidx, &lo, &hi)
        out.push(lo, hi)
    elif nt.porder[pidx] > nt.porder[<int>found[1]]:
        at = found[0]
        seen[key] = (at, pidx)
        _with_pattern(nt, pidx, &lo, &hi)
        out.lo[at] = lo
        out.hi[at] = hi


cdef int _pair_wings(_NT nt, Hand* h, int* take, int n, int pidx, _Sink out) except -1:
    cdef int options[NR]
    cdef int idx[NR]
    cdef int m = 0, r, i, j
    for r in range(NR):
        if h.cnt[r] >= 2 and take[r] == 0:
            options[m] = r
            m += 1
    if n > m or n <= 0:
        if n == 0:
            _add(nt, h, take, pidx, out)
        return 0
    # combinations(options, n) in lexicographic order
    for i in range(n):
        idx[i] = i
    while True:
        if not (options[idx[n - 1]] == RJ and _has_bj(options, idx, n)):
            for i in range(n):
                take[options[idx[i]]] = 2
            _add(nt, h, take, pidx, out)
            for i in range(n):
                take[options[idx[i]]] = 0
        i = n - 1
        while i >= 0 and idx[i] == i + m - n:
            i -= 1
        if i < 0:
            return 0
        idx[i] += 1
        for j in range(i + 1, n):
            idx[j] = idx[j - 1] + 1
    return 0


cdef inline bint _has_bj(int* options, int* idx, int n):
    cdef int i
    for i in range(n):
        if options[idx[i]] == BJ:
            return True
    return False


cdef int _card_wings(_NT nt, Hand* h, int* take, int n, int pidx, _Sink out) except -1:
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
            _add(nt, h, take, pidx, out)
            take[cr[i]] = 0
        return 0
    if n == 2:
        for i in range(m):
            if cc[i] >= 2:
                take[cr[i]] = 2
                _add(nt, h, take, pidx, out)
                take[cr[i]] = 0
        for i in range(m):
            take[cr[i]] = 1
            for j in range(i + 1, m):
                if cr[j] == RJ and cr[i] == BJ and nt.one_deck_rocket:
                    continue
                take[cr[j]] = 1
                _add(nt, h, take, pidx, out)
                take[cr[j]] = 0
            take[cr[i]] = 0
        return 0
    cdef int chosen_r[NR]
    cdef int chosen_t[NR]
    _rec(nt, h, take, cr, cc, m, 0, n, chosen_r, chosen_t, 0, pidx, out)


cdef int _rec(_NT nt, Hand* h, int* take, int* cr, int* cc, int m, int i, int left,
               int* chosen_r, int* chosen_t, int nchosen, int pidx, _Sink out) except -1:
    cdef int j, t, top
    if left == 0:
        if (nt.jokers and nchosen >= 2 and chosen_r[nchosen - 1] == RJ
                and chosen_r[nchosen - 2] == BJ and chosen_t[nchosen - 2] == nt.decks
                and chosen_t[nchosen - 1] == nt.decks):
            return 0
        _add(nt, h, take, pidx, out)
        return 0
    for j in range(i, m):
        top = cc[j] if cc[j] < left else left
        for t in range(top, 0, -1):
            chosen_r[nchosen] = cr[j]
            chosen_t[nchosen] = t
            take[cr[j]] = t
            _rec(nt, h, take, cr, cc, m, j + 1, left - t, chosen_r, chosen_t, nchosen + 1,
                 pidx, out)
            take[cr[j]] = 0
    return 0


cdef inline object _last_pattern(v, last):
    if last is None:
        return None
    if type(last) is _PLAY or isinstance(last, Play):
        return last[1]
    if type(last) is _PATTERN or isinstance(last, Pattern):
        return last
    return _classify(v, last, None) if last else None


cdef int _run(_NT nt, Hand* h, object last_pattern, _Sink out) except -1:
    """Put every play of the hand that beats ``last_pattern`` into ``out``; 1 when the pure
    code must answer instead (a play to beat of a kind this game lacks)."""
    cdef int i, code
    if last_pattern is None:
        for i in range(nt.nkinds):
            _generate(nt, h, nt.kinds[i], None, out)
        return 0
    kind = (<tuple>last_pattern)[0]
    if kind is K_ROCKET_KIND:
        return 0
    if kind is not K_BOMB_KIND:
        code = _kind_code(kind)
        if code < 0 or not nt.allowed[code]:
            return 1
        _generate(nt, h, code, last_pattern, out)
        if kind is K_STRAIGHT_KIND and nt.has_sf:
            _straight_flushes(nt, h, last_pattern, out)
    _bombs(nt, h, last_pattern, out)
    _rocket(nt, h, out)
    return 0


cdef inline _Sink _claim(_Sink shared):
    cdef _Sink out = shared
    if out.busy:
        out = _Sink()
        out.ids = shared.ids
    out.busy = True
    out.n = 0
    out.seen = None
    return out


def legal_plays(v, hand, last=()):
    """moves.legal_plays, compiled (same arguments, same result)."""
    cdef _NT nt = _tables(v)
    cdef Hand h
    cdef _Sink out
    last_pattern = _last_pattern(v, last)
    if not _load_hand(nt, hand, &h):
        return _py_legal(v, hand, last_pattern if last_pattern is not None else ())
    out = _claim(_PLAYS_SINK)
    try:
        out.plays = []
        if _run(nt, &h, last_pattern, out):
            return _py_legal(v, hand, last_pattern)
        return tuple(out.plays)
    finally:
        out.plays = None
        out.busy = False


def legal_ids(v, hand, last=None):
    """moves.legal_ids, compiled: the plays' ids written from C, no Play made."""
    cdef _NT nt = _tables(v)
    cdef Hand h
    cdef _Sink out
    last_pattern = _last_pattern(v, last)
    if not nt.ids_in_c or not _load_hand(nt, hand, &h):
        return _py_ids(v, hand, last_pattern)
    out = _claim(_IDS_SINK)
    try:
        if _run(nt, &h, last_pattern, out):
            return _py_ids(v, hand, last_pattern)
        return _ids_result(nt, out)
    finally:
        out.busy = False


def play_from_id(v, move_id):
    """moves.play_from_id, compiled for ids that fit 64 bits (anything else, and every id
    it refuses, goes to the pure function)."""
    cdef _NT nt = _tables(v)
    cdef u64 x, fields
    cdef int ids[64]
    cdef int n = 0, c, i
    cdef Py_ssize_t index
    cdef unsigned long long key = 0
    cdef bint one_suit = True
    if not nt.narrow or type(move_id) is not int or move_id < 0 or move_id >= 2 ** 64:
        return _py_from_id(v, move_id)
    x = move_id
    index = <Py_ssize_t>(x >> nt.pshift)
    if index >= len(nt.patterns):
        return _py_from_id(v, move_id)  # raises
    pattern = nt.patterns[index]
    fields = x & (((<u64>1) << nt.pshift) - 1)
    while fields:
        c = __builtin_ctzll(fields)
        if n == 64 or (c >= 52 and not nt.jokers):
            return _py_from_id(v, move_id)  # raises
        ids[n] = c
        n += 1
        fields &= fields - 1
    if n != pattern.size:
        return _py_from_id(v, move_id)  # raises
    # The cards must read as the pattern (patterns.readings, from the classifier's memo).
    for i in range(n):
        key += NIBBLE[ids[i]]
        one_suit = one_suit and (ids[i] & 3) == (ids[0] & 3)
    entry = nt.memo.get(key)
    if entry is None:
        return _py_from_id(v, move_id)  # fills the memo (or raises)
    flush = (<tuple>entry)[2]
    if flush is not None and one_suit:
        if pattern != flush:
            return _py_from_id(v, move_id)  # raises
    elif pattern not in <tuple>(<tuple>entry)[0]:
        return _py_from_id(v, move_id)  # raises
    return _play(_cards_tuple(ids, n), pattern)


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
    if reading is not None:
        return _py_classify(v, cards, reading, last)
    return _classify(v, cards, last)


cdef object _classify(v, cards, last):
    cdef unsigned long long key = 0, seen1 = 0, seen2 = 0, bit
    cdef long x
    cdef int n = 0, suit = -1
    cdef bint one_suit = True
    cdef _NT nt
    nt = _tables(v)
    for obj in cards:
        if not isinstance(obj, int):
            return _py_classify(v, cards, None, last)
        try:
            x = obj
        except OverflowError:
            return _py_classify(v, cards, None, last)
        if x < 0 or x >= 54:
            return _py_classify(v, cards, None, last)
        bit = (<unsigned long long>1) << x
        if seen1 & bit:
            if seen2 & bit:
                return _py_classify(v, cards, None, last)  # three copies: the pure code decides
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
    return _choose(_tables(v), v, hand, last, no_bombs, must_hold)


cdef object _choose(_NT nt, v, hand, last, bint no_bombs, must_hold):
    global _RulesError
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
                pattern = _classify(v, cards, None)
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
        sink = _Sink()
        sink.plays = []
        _rocket(nt, &h, sink)
        return sink.plays[0]
    return None


# ------------------------------------------------------------------ self-play's play phase
cdef object _PLAY_CARDS = None  # actions.PlayCards and actions.Pass, set on first use
cdef object _PASS = None


cdef extern from "Python.h":
    int PyObject_GenericSetAttr(object o, object name, object value) except -1


cdef object _action(object cls, tuple names, tuple values):
    """An instance of a frozen, slotted dataclass with these field values, as its __init__
    would make it (object.__setattr__ per field) without running Python code."""
    cdef object obj = PyType_GenericAlloc(<PyTypeObject*>cls, 0)
    cdef Py_ssize_t i
    for i in range(len(names)):
        PyObject_GenericSetAttr(obj, names[i], values[i])
    return obj


cdef tuple _PLAY_FIELDS = ("seat", "cards", "reading", "by")
cdef tuple _PASS_FIELDS = ("seat", "by")


cdef inline bint _sorted(tuple cards):
    cdef Py_ssize_t i
    for i in range(1, len(cards)):
        if cards[i - 1] > cards[i]:
            return False
    return True


cdef object _without(tuple hand, tuple cards):
    """game._remove(hand, cards): ``hand`` less one copy of each card, in order; None when
    the hand lacks one."""
    cdef int take[54]
    cdef int i, c
    cdef Py_ssize_t k, n = 0
    for i in range(54):
        take[i] = 0
    for obj in cards:
        c = obj
        if c < 0 or c >= 54:
            return None
        take[c] += 1
    out = PyTuple_New(len(hand) - len(cards)) if len(hand) >= len(cards) else None
    if out is None:
        return None
    for k in range(len(hand)):
        obj = hand[k]
        c = obj
        if take[c]:
            take[c] -= 1
            continue
        if n == len(hand) - len(cards):
            return None
        Py_INCREF(obj)
        PyTuple_SET_ITEM(out, n, obj)
        n += 1
    if n != len(hand) - len(cards):
        return None
    return out


def autoplay_plays(v, list hands, list played, list made, list log, int seat, last, last_seat,
                   int passes, landlord, bint spade_rule, bint opened, tuple bombs, by,
                   read_play, bomb_record, lead_cannot_pass):
    """game.autoplay_out's play loop, compiled: the same moves (choose_play), the same checks
    (game._read_play's: the cards in the hand, the ♠3 a first lead must hold, the cards
    classified against the play to beat) and the same log.  Anything those checks refuse is
    handed to ``read_play`` (game._read_play), which raises what apply would; a lead that
    passes, to ``lead_cannot_pass``.  Updates ``hands``, ``played``, ``made`` and ``log`` in
    place; returns (winner, last, last_seat, bombs)."""
    global _PLAY_CARDS, _PASS
    cdef _NT nt = _tables(v)
    cdef int n = v.players
    cdef int code
    if _PLAY_CARDS is None:
        from .actions import Pass, PlayCards
        _PLAY_CARDS, _PASS = PlayCards, Pass
    spade_three = _CARDS[0]  # cards.SPADE_THREE: the 3 of spades is card 0
    while True:
        hand = hands[seat]
        if last is None:
            must = spade_three if spade_rule and not opened and spade_three in hand else None
            play = _choose(nt, v, hand, None, False, must)
            last_pattern = None
        else:
            must = None
            # _auto_move's rule: a farmer never bombs over his partner (last_seat is set).
            last_pattern = (<tuple>last)[1]
            play = _choose(nt, v, hand, last_pattern,
                           landlord is not None and seat != landlord and last_seat != landlord,
                           None)
        if play is None:  # a pass
            if last is None:
                lead_cannot_pass(seat)  # raises
            log.append(_action(_PASS, _PASS_FIELDS, (seat, by)))
            passes += 1
            if passes == n - 1:  # a new trick, led by the last play's seat
                seat, last, last_seat, passes = last_seat, None, None, 0
            else:
                seat = (seat + 1) % n
            continue
        cards = (<tuple>play)[0]
        action = _action(_PLAY_CARDS, _PLAY_FIELDS, (seat, cards, None, by))
        rest = None
        if type(hand) is tuple and type(cards) is tuple and len(<tuple>cards) and (
            must is None or must in cards
        ):
            rest = _without(<tuple>hand, <tuple>cards)
        pattern = None
        if rest is not None:
            try:
                pattern = _classify(v, cards, last_pattern)
            except _RULES_ERROR:
                pattern = None
        if pattern is None:
            rest, pattern = read_play(v, hand, action, must, last)  # raises, as apply would
        log.append(action)
        hands[seat] = rest
        played[seat] += len(<tuple>cards)
        made[seat] += 1
        opened = True
        code = _kind_code((<tuple>pattern)[0])
        if code == K_BOMB or code == K_ROCKET:
            bombs = (*bombs, bomb_record(seat, pattern, last is None))
        last = _play(cards if _sorted(<tuple>cards) else tuple(sorted(cards)), pattern)
        last_seat, passes = seat, 0
        if not rest:
            return seat, last, last_seat, bombs
        seat = (seat + 1) % n


# ------------------------------------------------------------------ the seeded shuffle
def shuffle_draws(list deck, tuple draws):
    """deal.shuffle's Fisher–Yates loop over the stream's first draws: the shuffled copy of
    ``deck``, or None when a draw is discarded or the draws run out (the pure loop then goes
    on into the stream)."""
    cdef list out = list(deck)
    cdef Py_ssize_t i, j, k = 0, count = len(draws)
    cdef u64 x, n, rejected
    for i in range(len(out) - 1, 0, -1):
        n = i + 1
        if k == count:
            return None
        x = draws[k]
        k += 1
        # deal._below: x is kept when below 2**64 - 2**64 % n (the largest multiple of n)
        rejected = (<u64>0 - n) % n  # 2**64 % n
        if rejected and x >= <u64>0 - rejected:
            return None
        j = <Py_ssize_t>(x % n)
        out[i], out[j] = out[j], out[i]
    return out
