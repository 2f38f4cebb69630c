// SPDX-License-Identifier: Apache-2.0
// The README's grpcurl walkthrough, call by call, by a third-party reflection client
// (npm's grpc-js-reflection-client over @grpc/grpc-js): no .proto file is given to it, every
// service and message type comes from tilejitd's server reflection, as grpcurl sees them.
//
//   1. list services                    grpcurl -plaintext ADDR list
//   2. describe the service, a message   grpcurl -plaintext ADDR describe tilejit.v1.TileJit
//   3. health check                      grpcurl ... grpc.health.v1.Health/Check
//   4. compile from JSON                 grpcurl -d '{"source": ..., "entry": "matmul", ...}'
//   5. get the kernel                    grpcurl -d '{"handle": ...}' ... GetKernel
//
// Starts its own tilejitd (TILEJITD) on a free loopback port with a fresh cache and always
// stops it. Exit status 0 when every step passed. Needs TILEJIT_KERNELS_DIR.
'use strict';

const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const grpc = require('@grpc/grpc-js');
const { GrpcReflection } = require('grpc-js-reflection-client');

const TILEJITD = process.env.TILEJITD;
const KERNELS = process.env.TILEJIT_KERNELS_DIR;
const LOADER = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

let daemon = null;
function stopDaemon() {
  if (daemon && daemon.exitCode === null && daemon.signalCode === null) {
    try { process.kill(-daemon.pid, 'SIGKILL'); } catch (e) { /* already gone */ }
  }
}
process.on('exit', stopDaemon);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(2));

// Starts tilejitd; resolves to its port (read from its stdout).
function startDaemon(cacheDir) {
  // setpriv --pdeathsig: the daemon dies with this process even when it is SIGKILLed (a
  // CTest timeout), which no exit handler survives.
  const args = ['--pdeathsig', 'KILL', '--', TILEJITD, '--listen', '127.0.0.1:0',
    '--cache-path', path.join(cacheDir, 'kernels.sqlite')];
  daemon = spawn('setpriv', args, { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('tilejitd did not start in 60 s')), 60000);
    daemon.on('exit', (code) => reject(new Error(`tilejitd exited early (${code})`)));
    // The daemon logs to stdout too: look for its port line and keep draining the rest.
    readline.createInterface({ input: daemon.stdout }).on('line', (line) => {
      const m = /^tilejitd listening on port (\d+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
}

// A JSON value as google.protobuf.Value (what grpcurl's JSON mapping does for Struct/Value).
function toValue(v) {
  if (v === null) return { null_value: 'NULL_VALUE' };
  if (typeof v === 'number') return { number_value: v };
  if (typeof v === 'string') return { string_value: v };
  if (typeof v === 'boolean') return { bool_value: v };
  if (Array.isArray(v)) return { list_value: { values: v.map(toValue) } };
  return { struct_value: toStruct(v) };
}
// Struct.fields is a map<string, Value>. The client that reflection builds sees the map's
// wire form, a repeated FieldsEntry {key, value} (the same bytes on the wire).
function toStruct(o) {
  return { fields: Object.entries(o).map(([key, v]) => ({ key, value: toValue(v) })) };
}

// A service client built only from reflection.
async function reflectedClient(reflection, address, serviceName) {
  const descriptor = await reflection.getDescriptorBySymbol(serviceName);
  let obj = descriptor.getPackageObject(LOADER);
  for (const part of serviceName.split('.')) obj = obj[part];
  assert.ok(obj, `reflection gave no constructor for ${serviceName}`);
  return new obj(address, grpc.credentials.createInsecure());
}

function call(client, method, request) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + 120000);
    client[method](request, { deadline }, (err, resp) => (err ? reject(err) : resolve(resp)));
  });
}

async function step(name, fn) {
  await fn();
  console.log(`ok - ${name}`);
}

async function main() {
  assert.ok(TILEJITD && KERNELS, 'TILEJITD and TILEJIT_KERNELS_DIR must be set');
  const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tilejit-js-'));
  const address = `127.0.0.1:${await startDaemon(cacheDir)}`;
  const reflection = new GrpcReflection(address, grpc.credentials.createInsecure());

  await step('list services', async () => {
    const services = await reflection.listServices();
    for (const s of ['tilejit.v1.TileJit', 'grpc.health.v1.Health']) {
      assert.ok(services.includes(s), `${s} missing from ${services}`);
    }
  });

  await step('describe tilejit.v1.TileJit and tilejit.v1.CompileRequest', async () => {
    const methods = (await reflection.listMethods('tilejit.v1.TileJit')).map((m) => m.name);
    for (const m of ['Compile', 'CompileStream', 'GetKernel', 'Launch', 'Stats', 'List']) {
      assert.ok(methods.includes(m), `${m} missing from ${methods}`);
    }
    const root = (await reflection.getDescriptorBySymbol('tilejit.v1.CompileRequest'))
      .getProtobufJsRoot();
    const type = root.lookupType('tilejit.v1.CompileRequest');
    for (const f of ['source', 'entry', 'args', 'pass_configs', 'target']) {
      assert.ok(type.fields[f], `CompileRequest has no field ${f}`);
    }
    assert.equal(type.fields.args.type.replace(/^\./, ''), 'google.protobuf.Value');
  });

  await step('grpc.health.v1.Health/Check is SERVING', async () => {
    const health = await reflectedClient(reflection, address, 'grpc.health.v1.Health');
    assert.equal((await call(health, 'Check', { service: '' })).status, 'SERVING');
    assert.equal((await call(health, 'Check', { service: 'tilejit.v1.TileJit' })).status,
      'SERVING');
  });

  const tilejit = await reflectedClient(reflection, address, 'tilejit.v1.TileJit');
  let handle = '';
  await step('Compile from JSON (gemm_expert.py)', async () => {
    const json = {
      source: fs.readFileSync(path.join(KERNELS, 'gemm_expert.py'), 'utf8'),
      entry: 'matmul',
      args: [256, 512, 384, 128, 256, 64],
      pass_configs: { 'tir.merge_static_smem': true },
    };
    const request = { ...json, args: json.args.map(toValue), pass_configs: toStruct(json.pass_configs) };
    const r = await call(tilejit, 'Compile', request);
    assert.equal(r.ok, true, r.error);
    assert.match(r.handle, /^tj1_[0-9a-f]{64}$/);
    assert.equal(r.handle, `tj1_${r.key}`);
    assert.ok(r.ignored_config_keys.includes('tir.merge_static_smem'), r.ignored_config_keys);
    assert.equal(r.metadata.kernel_name.length > 0, true);
    assert.equal(r.tier, 'compiled');
    handle = r.handle;
    const again = await call(tilejit, 'Compile', request);
    assert.equal(again.handle, handle);
    assert.equal(again.tier, 'memory');
  });

  await step('GetKernel by handle', async () => {
    const k = await call(tilejit, 'GetKernel', { handle });
    assert.equal(k.handle, handle);
    assert.ok(Buffer.from(k.binary).subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])));
    assert.equal(Number(k.size_bytes), k.binary.length);
    await assert.rejects(call(tilejit, 'GetKernel', { handle: `tj1_${'0'.repeat(64)}` }),
      (e) => e.code === grpc.status.NOT_FOUND);
  });

  tilejit.close();
  daemon.kill('SIGTERM');
  await new Promise((resolve) => daemon.once('exit', resolve));
  fs.rmSync(cacheDir, { recursive: true, force: true });
}

main().then(() => process.exit(0), (e) => {
  console.error(`not ok - ${e.stack || e}`);
  process.exit(1);
});
