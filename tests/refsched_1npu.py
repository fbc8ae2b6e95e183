#!/usr/bin/env python3
# refsched_1npu.py -- an independent reference for tests/cli_astra_breaks.sh:
# the list schedule of a one-NPU Chakra trace, computed from the trace's JSON
# dump (`clustersim inspect --json`) without any of clustersim's code.
#
#   refsched_1npu.py DUMP.json ctrl|noctrl   -> prints the finish time in ns
#
# Rules (docs/architecture.md, "The executor"; docs/astra-compat.md):
#  - a node waits for its data parents and, with `ctrl`, its control parents
#    that exist, are not itself and do not lie on a dependency cycle (a
#    control-only edge inside a strongly connected component is dropped);
#  - resources: the GPU stream (COMP), the CPU thread (is_cpu_op COMP, and
#    COMM nodes with is_cpu_op: host-side records replayed as CPU compute),
#    the communication engine (COMM_COLL, one at a time); METADATA / INVALID
#    complete at once; ready nodes start smallest id first per resource;
#  - durations: duration_micros (0 us takes 1 ns); on one NPU a collective
#    moves nothing and completes at once, except BROADCAST (replayed);
#  - events at one instant run in the order of their causes: an executor
#    event gets a fresh key, a collective's completion the key of the event
#    that issued it (docs/collectives.md, "Messages, events, determinism").
import heapq
import json
import sys


def load(path):
    txt = open(path).read()
    dec = json.JSONDecoder()
    i, objs = 0, []
    while i < len(txt):
        while i < len(txt) and txt[i].isspace():
            i += 1
        if i >= len(txt):
            break
        o, i = dec.raw_decode(txt, i)
        objs.append(o)
    return objs[1:]  # the first object is the global metadata


def attr(n, k):
    for a in n.get('attr', []):
        if a['name'] == k:
            return [v for kk, v in a.items() if kk not in ('name', 'docString')][0]
    return None


def main():
    nodes = load(sys.argv[1])
    use_ctrl = sys.argv[2] == 'ctrl'
    byid = {int(n['id']): n for n in nodes}
    ids = sorted(byid)
    data = {i: {int(d) for d in byid[i].get('dataDeps', [])} for i in ids}
    parents = {i: set(data[i]) for i in ids}
    if use_ctrl:
        for i in ids:
            parents[i] |= {int(d) for d in byid[i].get('ctrlDeps', []) if int(d) in byid and int(d) != i}
    children = {i: [] for i in ids}
    for i in ids:
        for p in parents[i]:
            children[p].append(i)
    # strongly connected components (Tarjan, recursive: these traces are small)
    sys.setrecursionlimit(1000000)
    index, low, comp, onst, st, counter = {}, {}, {}, set(), [], [0, 0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        st.append(v)
        onst.add(v)
        for w in children[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in onst:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            while True:
                w = st.pop()
                onst.discard(w)
                comp[w] = counter[1]
                if w == v:
                    break
            counter[1] += 1

    for v in ids:
        if v not in index:
            strong(v)
    for i in ids:
        parents[i] = {p for p in parents[i] if not (comp[p] == comp[i] and p not in data[i])}
    children = {i: [] for i in ids}
    for i in ids:
        for p in parents[i]:
            children[p].append(i)

    def kind(n):
        cpu = attr(n, 'is_cpu_op') is True
        if n['type'] == 'COMP_NODE' or (cpu and n['type'].startswith('COMM_')):
            return 'cpu' if cpu else 'gpu'
        if n['type'] == 'COMM_COLL_NODE':
            return 'comm'
        return 'instant'

    def dur_ps(n):
        d = int(n.get('durationMicros', 0))
        return 1000 if d == 0 else d * 1000000

    pending = {i: len(parents[i]) for i in ids}
    ready = {'gpu': [], 'cpu': [], 'comm': []}
    instant, busy = [], {'gpu': False, 'cpu': False}
    st8 = {'now': 0, 'key': None, 'keys': 0, 'seq': 0, 'comm': 0, 'finish': 0, 'done': 0}
    ev = []

    def push(t, key, what):
        st8['seq'] += 1
        heapq.heappush(ev, (t, key, st8['seq'], what))

    def fresh_key():
        st8['keys'] += 1
        return st8['keys']

    def make_ready(i):
        k = kind(byid[i])
        if k == 'instant':
            instant.append(i)
        else:
            heapq.heappush(ready[k], i)

    def complete(i):
        st8['finish'] = st8['now']
        st8['done'] += 1
        for c in children[i]:
            pending[c] -= 1
            if pending[c] == 0:
                make_ready(c)

    def try_issue():
        while True:
            progressed = False
            for k in ('gpu', 'cpu'):
                if not busy[k] and ready[k]:
                    i = heapq.heappop(ready[k])
                    busy[k] = True
                    push(st8['now'] + dur_ps(byid[i]), fresh_key(), (k, i))
                    progressed = True
            while ready['comm'] and st8['comm'] < 1:
                i = heapq.heappop(ready['comm'])
                st8['comm'] += 1
                n = byid[i]
                key = st8['key'] if st8['key'] is not None else fresh_key()
                push(st8['now'] + (dur_ps(n) if int(attr(n, 'comm_type')) == 5 else 0), key, ('comm', i))
                progressed = True
            if instant:
                while instant:
                    complete(instant.pop())
                progressed = True
            if not progressed:
                return

    for i in ids:
        if pending[i] == 0:
            make_ready(i)
    try_issue()
    while ev:
        t, key, _, (k, i) = heapq.heappop(ev)
        st8['now'], st8['key'] = t, key
        if k == 'comm':
            st8['comm'] -= 1
        else:
            busy[k] = False
        complete(i)
        while instant:
            complete(instant.pop())
        try_issue()
        st8['key'] = None
    if st8['done'] != len(ids):
        sys.exit('stuck: %d of %d nodes completed' % (st8['done'], len(ids)))
    print(st8['finish'] // 1000)


main()
