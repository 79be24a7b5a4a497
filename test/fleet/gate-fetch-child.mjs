// A pipeline process from the README's fleet section, on the built package: its gate shares
// robots.txt and each host's interval through Redis. argv: mode (`store`: `{ store }` only;
// `spread`: `...stores`), Redis URL, run, prefix, floor ms, resolve entry, then the URLs.
import { RobotsGate } from '../../dist/index.js';
import { createRedisStores } from '../../dist/stores/redis.js';

const [mode, url, run, prefix, floor, resolve, ...urls] = process.argv.slice(2);
const stores = await createRedisStores(url, { run, prefix });
const common = { userAgent: 'FleetBot/1.0', resolve: [resolve], minIntervalMs: Number(floor), jitter: 0 };
const gate = new RobotsGate(mode === 'store' ? { ...common, store: stores.store } : { ...common, ...stores });
for (const u of urls) await (await gate.fetch(u)).arrayBuffer();
await gate.close();
await stores.close();
