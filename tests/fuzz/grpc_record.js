// A recording gRPC proxy for seeding fuzz_serve_requests with what real
// clients send: every Bigtable Data and Table Admin call that reaches
// LISTEN is forwarded to UPSTREAM byte for byte, and its request is written
// to OUTDIR as a seed (the harness's method byte, then the request as sent),
// named by the method and a hash of the bytes, so a request sent twice is
// one seed. Prints "recording on HOST:PORT" once it listens.
// Usage: node grpc_record.js LISTEN UPSTREAM OUTDIR  (with @grpc/grpc-js)
'use strict';
const grpc = require('@grpc/grpc-js');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const [listen, upstream, outdir] = process.argv.slice(2);
// the method order of tests/fuzz/fuzz_serve_requests.c (its first byte)
const DATA = ['ReadRows', 'MutateRow', 'MutateRows', 'CheckAndMutateRow', 'ReadModifyWriteRow',
              'SampleRowKeys', 'PingAndWarm'];
const ADMIN = ['CreateTable', 'ListTables', 'GetTable', 'DeleteTable', 'ModifyColumnFamilies',
               'DropRowRange'];
const STREAMS = new Set(['ReadRows', 'MutateRows', 'SampleRowKeys']);
const same = b => b;
const opts = {'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1};
const client = new grpc.Client(upstream, grpc.credentials.createInsecure(), opts);

function record(name, req) {
  const seed = Buffer.concat([Buffer.from([DATA.concat(ADMIN).indexOf(name)]), req]);
  const h = crypto.createHash('sha1').update(seed).digest('hex').slice(0, 12);
  fs.writeFileSync(path.join(outdir, `cap_${name.toLowerCase()}_${h}`), seed);
}

const definition = {};
const handlers = {};
for (const [service, names] of [['google.bigtable.v2.Bigtable', DATA],
                                ['google.bigtable.admin.v2.BigtableTableAdmin', ADMIN]]) {
  for (const name of names) {
    const p = `/${service}/${name}`;
    definition[name] = {path: p, requestStream: false, responseStream: STREAMS.has(name),
                        requestSerialize: same, requestDeserialize: same,
                        responseSerialize: same, responseDeserialize: same};
    handlers[name] = STREAMS.has(name)
      ? call => {
          record(name, call.request);
          const up = client.makeServerStreamRequest(p, same, same, call.request);
          up.on('data', d => call.write(d));
          up.on('end', () => call.end());
          up.on('error', e => call.emit('error', e));
        }
      : (call, done) => {
          record(name, call.request);
          client.makeUnaryRequest(p, same, same, call.request, done);
        };
  }
}

const server = new grpc.Server(opts);
server.addService(definition, handlers);
server.bindAsync(listen, grpc.ServerCredentials.createInsecure(), (err, port) => {
  if (err) {
    console.error('grpc_record.js:', err.message);
    process.exit(1);
  }
  console.log(`recording on ${listen.replace(/:\d+$/, '')}:${port}`);
});
