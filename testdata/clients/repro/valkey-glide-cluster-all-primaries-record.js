// repro: valkey-glide 2.5.2's GlideClusterClient sends a keyless command such as DEBUG PROTOCOL to every primary and returns a record of each node's reply keyed by its address, not the reply; against a cluster of 3 primaries.
// finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-glide-2.5.2/cluster/resp2]
// finds: attributes/attribute typed as an attribute on a blob string [valkey-glide-2.5.2/cluster/resp2]
// finds: attributes/two attributed blob strings pipelined [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/RESP3 double from DEBUG PROTOCOL [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/attribute before a reply [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/map with integer keys [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/set and booleans [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/verbatim strings [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/big number [valkey-glide-2.5.2/cluster/resp2]
// finds: nil-kinds/null from DEBUG PROTOCOL null, a nil blob string in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/integer from DEBUG PROTOCOL integer [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/blob string from DEBUG PROTOCOL string [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/array of integers from DEBUG PROTOCOL array [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/null from DEBUG PROTOCOL null, a nil blob string in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/double from DEBUG PROTOCOL double, a blob string in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/booleans from DEBUG PROTOCOL true and false, integers in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/verbatim string with txt format from DEBUG PROTOCOL verbatim, a blob string in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/map of integer keys to booleans from DEBUG PROTOCOL map, a flat array in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/set of integers from DEBUG PROTOCOL set, an array in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-glide-2.5.2/cluster/resp2]
// finds: faults/RESP3 double from DEBUG PROTOCOL [valkey-glide-2.5.2/cluster/resp3]
// finds: faults/push after a reply [valkey-glide-2.5.2/cluster/resp3]
// finds: faults/set and booleans [valkey-glide-2.5.2/cluster/resp3]
// finds: faults/verbatim strings [valkey-glide-2.5.2/cluster/resp3]
// finds: faults/big number [valkey-glide-2.5.2/cluster/resp3]
// finds: nil-kinds/null from DEBUG PROTOCOL null, a nil blob string in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: numbers/big numbers from DEBUG PROTOCOL bignum and a Lua script, blob strings in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: pushes/push frame after a blob string reply from DEBUG PROTOCOL push [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/integer from DEBUG PROTOCOL integer [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/blob string from DEBUG PROTOCOL string [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/array of integers from DEBUG PROTOCOL array [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/null from DEBUG PROTOCOL null, a nil blob string in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/double from DEBUG PROTOCOL double, a blob string in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/booleans from DEBUG PROTOCOL true and false, integers in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/verbatim string with txt format from DEBUG PROTOCOL verbatim, a blob string in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/big number from DEBUG PROTOCOL bignum, a blob string in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/set of integers from DEBUG PROTOCOL set, an array in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/push frame beside a blob string from DEBUG PROTOCOL push [valkey-glide-2.5.2/cluster/resp3]
// cluster: true
// finds: attributes/attribute map before a blob string, then an ordinary reply [valkey-glide-2.5.2/cluster/resp3]
// finds: attributes/attribute typed as an attribute on a blob string [valkey-glide-2.5.2/cluster/resp3]
// finds: attributes/two attributed blob strings pipelined [valkey-glide-2.5.2/cluster/resp3]
// finds: faults/attribute before a reply [valkey-glide-2.5.2/cluster/resp3]
// finds: faults/map with integer keys [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/map of integer keys to booleans from DEBUG PROTOCOL map, a flat array in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// finds: resp3-types/attribute before a blob string from DEBUG PROTOCOL attrib, the bare blob string in RESP2 [valkey-glide-2.5.2/cluster/resp3]
// run: node
// expect: (?s)RESP2 DEBUG PROTOCOL integer DECODED: \[ \{ key: '127\.0\.0\.1:\d+', value: 12345 \}, \{ key: '127\.0\.0\.1:\d+', value: 12345 \}, \{ key: '127\.0\.0\.1:\d+', value: 12345 \} \].*RESP3 DEBUG PROTOCOL map DECODED: \[ \{ key: '127\.0\.0\.1:\d+', value:
const { client, step, main } = require('./lib');
main(async () => {
  for (const p of [2, 3]) {
    const c = await client('valkey-glide-cluster', p);
    console.log('wire: :12345\\r\\n from each of the 3 primaries');
    await step('RESP' + p + ' DEBUG PROTOCOL integer', c, ['DEBUG', 'PROTOCOL', 'integer']);
    await step('RESP' + p + ' DEBUG PROTOCOL map', c, ['DEBUG', 'PROTOCOL', 'map']);
    await step('RESP' + p + ' DEBUG PROTOCOL attrib', c, ['DEBUG', 'PROTOCOL', 'attrib']);
    c.close();
  }
});
