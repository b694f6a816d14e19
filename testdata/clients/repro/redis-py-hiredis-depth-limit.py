# repro: redis-py with the hiredis parser (python3-hiredis) (Debian's python3-hiredis 1.0.1, its bundled hiredis reader of 9 levels) raises InvalidResponse "No support for nested multi bulk replies with depth > 7" for 9 arrays nested (8 decode), which a server sends (a Lua table nested in tables from EVAL; Redis 8.6.3 returns up to 7,995 levels); the pure-Python parser returns it.
# finds: aggregates/arrays nested 150 deep from Lua [redis-py-4.3.4+hiredis/resp2]
# run: python-4.3.4+hiredis
# expect: (?s)config '\+hiredis': HiredisParser\n.*depth 8 DECODED: \[\[\[\[\[\[\[\[1\]\]\]\]\]\]\]\]\n.*depth 9 THROWN: InvalidResponse: No support for nested multi bulk replies with depth > 7\n.*depth 150 THROWN: InvalidResponse: No support for nested multi bulk replies with depth > 7\n.*after DECODED: b'next'
import lib

r = lib.client(2)
for depth in (8, 9, 150):
    print('wire: %d arrays around :1' % depth, flush=True)
    lib.step('depth %d' % depth, r, 'EVAL', 'local t={1} for i=1,%d do t={t} end return t' % (depth - 1), '0')
lib.step('after', r, 'ECHO', 'next')
