// One door of the politeness bench's instruction count, run under valgrind --tool=callgrind by
// bench/politeness.bench.mjs: warm up, then N sequential warm requests through DOOR (`plain`,
// `gated` or `off`: bench/politeness-doors.mjs) to the site at PORT. The bench runs it with N = 0
// and N > 0; the difference over N is the door's instructions a request, start-up and warm-up
// cancelled. Usage: node bench/politeness-instructions-client.mjs DOOR N PORT
import { warmDoors } from './politeness-doors.mjs';

const [door, n, port] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const { urls, doors, close } = warmDoors(port);
const f = doors[door];
// The warm-up: robots.txt of every host cached, the code optimised.
for (let i = 0; i < 300 + n; i++) await (await f(urls[i % urls.length])).arrayBuffer();
await close();
