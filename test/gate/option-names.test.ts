// RobotsGate refuses an option name it does not have (a typo must not silently mean the default),
// naming the closest one; every name the README documents or passes, and the examples pass, is taken.
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidOptionError, RobotsGate } from '../../src/index.js';

const UA = 'NameBot/1.0';
const gates: RobotsGate[] = [];
afterAll(async () => {
  await Promise.all(gates.map((g) => g.close()));
});

function refusal(options: object): InvalidOptionError {
  try {
    gates.push(new RobotsGate(options as never));
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidOptionError);
    return err as InvalidOptionError;
  }
  throw new Error(`${JSON.stringify(options)} was accepted`);
}

/** The top-level keys of each `new RobotsGate({ … })` literal in `text` (spreads left out). */
function gateOptionNames(code: string): string[] {
  const text = code.replace(/(^|\s)\/\/[^\n]*/g, '$1'); // line comments (not the // of a URL)
  const names: string[] = [];
  for (const m of text.matchAll(/new RobotsGate\(\{/g)) {
    let depth = 1;
    let key = '';
    let atKey = true;
    for (let i = m.index! + m[0].length; i < text.length && depth > 0; i++) {
      const c = text[i]!;
      if ('({['.includes(c)) depth++;
      else if (')}]'.includes(c)) depth--;
      if (depth !== 1) continue;
      if (c === ',') {
        if (atKey && key !== '') names.push(key); // shorthand
        key = '';
        atKey = true;
      }
      else if (atKey && /[\w$]/.test(c)) key += c;
      else if (atKey && key !== '' && /[\s:]/.test(c)) {
        names.push(key);
        key = '';
        atKey = false;
      } else if (atKey && c === '.') atKey = false; // a spread
    }
    if (key !== '') names.push(key); // shorthand last key
  }
  return names;
}

describe('RobotsGate option names', () => {
  it('a misspelt name throws InvalidOptionError naming it and the closest known one', () => {
    const e = refusal({ userAgent: UA, minIntervalMS: 0 });
    expect(e.code).toBe('ERR_INVALID_OPTION');
    expect(e.option).toBe('minIntervalMS');
    expect(e.message).toBe('RobotsGate has no option "minIntervalMS" (did you mean minIntervalMs?)');
    expect(refusal({ userAgent: UA, timeout: 5000 }).message).toMatch(/"timeout" \(did you mean timeoutMs\?\)/);
    expect(refusal({ userAgent: UA, maxRedirect: 2 }).message).toMatch(/did you mean maxRedirects\?/);
    // Said as itself, not as a missing userAgent.
    expect(refusal({ userAgnet: UA }).message).toMatch(/"userAgnet" \(did you mean userAgent\?\)/);
    // Nothing near: the names it has.
    expect(refusal({ userAgent: UA, concurrency: 4 }).message).toMatch(/no option "concurrency"; its options are userAgent, productToken, .*exempt$/);
  });

  it('takes every name the README documents or passes, and the examples pass', () => {
    const readme = fs.readFileSync('README.md', 'utf8');
    const documented = [...readme.matchAll(/^\| (`\w+`(?:\s*[/,]\s*`\w+`)*) \|/gm)].flatMap((m) => [...m[1]!.matchAll(/`(\w+)`/g)].map((n) => n[1]!));
    const examples = fs.readdirSync('examples/crawlers').map((f) => fs.readFileSync(`examples/crawlers/${f}`, 'utf8'));
    const passed = [readme, ...examples].flatMap(gateOptionNames);
    expect(passed).toEqual(expect.arrayContaining(['userAgent', 'resolve', 'minIntervalMs', 'purpose']));
    // Rows of the README's other tables (doors, usage lines) are no options.
    const names = [...new Set([...documented.filter((n) => /^[a-z]/.test(n) && !n.includes('.')), ...passed])];
    expect(names).toEqual(expect.arrayContaining(['timeoutMs', 'onVanished', 'exempt', 'clampCrawlDelay']));
    for (const name of names) {
      // undefined: the option's default, so only the name is tried.
      let err: unknown;
      try {
        gates.push(new RobotsGate({ [name]: undefined, userAgent: UA } as never));
      } catch (e) {
        err = e;
      }
      expect(err, name).toBeUndefined();
    }
  });
});
