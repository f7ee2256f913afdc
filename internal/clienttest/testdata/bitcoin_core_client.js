// Drives a Bitcoin Core RPC server with the npm `bitcoin-core` client and
// prints one JSON report on stdout.
//
// Usage: node bitcoin_core_client.js <module dir>
// where <module dir> is the installed bitcoin-core package. The request is
// read as JSON from stdin:
//   {"host": "http://127.0.0.1:<port>", "username": ..., "password": ...,
//    "descriptors": ["<descriptor>", ...]}
'use strict';

const fs = require('fs');

const Client = require(process.argv[2]);
const req = JSON.parse(fs.readFileSync(0, 'utf8'));

// errorReport keeps what a caller of the client sees of an error.
function errorReport(e) {
  return { name: e.name, code: e.code, message: e.message };
}

// outcome runs a call and reports its result or its error.
async function outcome(call) {
  try {
    return { result: await call() };
  } catch (e) {
    return { error: errorReport(e) };
  }
}

async function main() {
  const opts = { host: req.host, username: req.username, password: req.password };
  const client = new Client(opts);
  const out = {};

  out.echo = await outcome(() => client.command('echo', 'a', 1, [true, null], { k: 'v' }));
  const uptime = await client.upTime();
  out.uptime_is_int = Number.isInteger(uptime) && uptime >= 0;
  out.rpcinfo = await outcome(() => client.getRpcInfo());

  // Positional parameters, one call per descriptor, through the client's
  // named method.
  out.descriptors = [];
  for (const d of req.descriptors) {
    out.descriptors.push(await outcome(() => client.getDescriptorInfo(d)));
  }

  // A client told the server's version sends a lone object as named
  // parameters.
  const named = new Client({ ...opts, version: '28.0.0' });
  out.named = await outcome(() => named.getDescriptorInfo({ descriptor: req.descriptors[0] }));

  out.unknown = await outcome(() => client.command('nosuchmethod'));

  // A batch resolves to one entry per call: the result, or an Error.
  const batch = await client.command([
    { method: 'echo', parameters: ['b1'] },
    { method: 'getdescriptorinfo', parameters: req.descriptors.slice(-1) },
    { method: 'nosuchmethod' }
  ]);
  out.batch = batch.map(r => (r instanceof Error ? { error: errorReport(r) } : { result: r }));

  const bad = new Client({ ...opts, password: req.password + 'x' });
  out.bad_password = await outcome(() => bad.command('echo'));

  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch(e => {
  console.error(e);
  process.exit(1);
});
