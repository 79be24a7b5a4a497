// The politeness bench's loopback site for the overhead rows, in a process of its own: the CPU time
// the bench reads is then the client's alone (gate.fetch or plain fetch), not the server's too.
// Prints its port on stdout.
import http from 'node:http';

const page = 'x'.repeat(2_000);
const s = http.createServer((req, res) => {
  if (req.url === '/robots.txt') return void res.end('User-agent: *\nDisallow: /private\n');
  res.writeHead(200, { 'content-type': 'text/html' }).end(page);
});
s.keepAliveTimeout = 60_000;
s.listen(0, '127.0.0.1', () => process.stdout.write(`${s.address().port}\n`));
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
