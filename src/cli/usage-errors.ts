// Usage errors a new user meets first: a misspelt option. Commander checks required options before
// unknown ones, so `--ua X` read "required option '--user-agent <ua>' not specified", which hid the
// real mistake; and its suggestions only catch near spellings (`--useragent`), not initials (`--ua`).
import { InvalidArgumentError, type Command, type Option } from 'commander';

/** Report unknown options before missing required ones: commander's own check of required options
 *  is moved to just before the action, which runs after its check of unknown ones. */
export function unknownOptionsFirst(cmd: Command): void {
  const required: Option[] = cmd.options.filter((o) => o.mandatory);
  for (const o of required) o.mandatory = false;
  cmd.hook('preAction', (self) => {
    for (const o of required) {
      if (self.getOptionValue(o.attributeName()) === undefined) self.error(`error: required option '${o.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue', exitCode: 2 });
    }
  });
}

/** A long option `flag` may have meant, by its initials (`--ua` for `--user-agent`) or as a
 *  prefix (`--user` for `--user-agent`), when exactly one option fits; undefined otherwise. */
export function optionByInitials(flag: string, cmd: Command): string | undefined {
  const want = flag.replace(/^--/, '').toLowerCase();
  if (want.length < 2) return undefined;
  const longs = cmd.options.filter((o) => !o.hidden && o.long).map((o) => o.long!);
  const fits = longs.filter((l) => {
    const words = l.replace(/^--/, '').split('-');
    return words.map((w) => w[0]).join('') === want || (want.length >= 3 && l.slice(2).startsWith(want));
  });
  return fits.length === 1 ? fits[0] : undefined;
}

/** Commander's error text, with a suggestion by initials added to an unknown option it found no
 *  near spelling for. */
export function withInitialsHint(text: string, cmd: Command): string {
  const m = /^error: unknown option '([^']+)'\n?$/.exec(text);
  if (!m) return text;
  const hint = optionByInitials(m[1]!, cmd);
  return hint ? `error: unknown option '${m[1]}'\n(Did you mean ${hint}?)\n` : text;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, sec: 1000, m: 60_000, min: 60_000, h: 3_600_000 };

/** Options whose placeholder names their unit (`<ms>`, `<s>`) refuse a value written with another
 *  unit: `--min-interval 2s` is told that the unit is ms, and what to give instead, rather than
 *  "must be a number". */
export function unitsSaid(cmd: Command): void {
  for (const o of cmd.options) {
    const unit = /<(ms|s)>/.exec(o.flags)?.[1];
    if (!unit || o.parseArg) continue;
    o.argParser((value: string) => {
      const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|m|min|h)\s*$/i.exec(value);
      if (!m) return value;
      const ms = Number(m[1]) * UNIT_MS[m[2]!.toLowerCase()]!;
      const n = unit === 'ms' ? ms : ms / 1000;
      throw new InvalidArgumentError(`The unit is ${unit}: give ${n} for ${value.trim()}.`);
    });
  }
}
