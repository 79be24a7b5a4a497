// Preference dictionaries (RFC 9651 structured fields, parsed by `structured-headers`): the aipref
// vocabulary of Content-Usage and Cloudflare's Content-Signal keys, mapped onto our purposes.
import { parseDictionary, Token } from 'structured-headers';
import type { Purpose } from './types.js';

/** aipref vocab draft labels → purposes. Unknown labels are ignored, as the draft says. */
const AIPREF: Readonly<Record<string, Purpose>> = { 'train-ai': 'ai-train', search: 'search' };
/** Content-Signal keys (Cloudflare's contentsignals.org) → purposes. */
const SIGNAL: Readonly<Record<string, Purpose>> = { search: 'search', 'ai-input': 'ai-input', 'ai-train': 'ai-train' };

export interface ReadPreferences {
  readonly purposes: Partial<Record<Purpose, 'allowed' | 'reserved'>>;
  /** Keys that name no known label (ignored). */
  readonly unknown: readonly string[];
  /** Known labels whose value is neither yes nor no (`train-ai=maybe`): they say nothing. */
  readonly badValues?: readonly string[];
  /** Set when the value is not a structured-field dictionary: nothing in it was used. */
  readonly syntaxError?: string;
  /** The value parsed only once lower-cased (RFC 9651 keys are lower-case): it was read so,
   *  since dropping a whole dictionary for `Search=y` would ignore its reservations too. */
  readonly lowerCased?: boolean;
}

/**
 * Read `value` as a preference dictionary of `kind`. Content-Usage takes tokens `y` / `n`;
 * Content-Signal takes `yes` / `no`. A value of another shape leaves the label unknown.
 * Never throws.
 */
export function readPreferences(kind: 'content-usage' | 'content-signal', value: string): ReadPreferences {
  const labels = kind === 'content-usage' ? AIPREF : SIGNAL;
  const yes = kind === 'content-usage' ? 'y' : 'yes';
  const no = kind === 'content-usage' ? 'n' : 'no';
  let dict;
  let lowerCased = false;
  try {
    dict = parseDictionary(value);
  } catch (err) {
    try {
      dict = parseDictionary(value.toLowerCase());
      lowerCased = true;
    } catch {
      return { purposes: {}, unknown: [], syntaxError: (err as Error).message };
    }
  }
  const purposes: Partial<Record<Purpose, 'allowed' | 'reserved'>> = {};
  const unknown: string[] = [];
  const badValues: string[] = [];
  for (const [key, entry] of dict) {
    const purpose = labels[key];
    if (purpose === undefined) {
      unknown.push(key);
      continue;
    }
    const item = entry[0];
    const v = item instanceof Token ? item.toString().toLowerCase() : typeof item === 'string' ? item.toLowerCase() : undefined;
    if (v === yes) purposes[purpose] = purposes[purpose] === 'reserved' ? 'reserved' : 'allowed';
    else if (v === no) purposes[purpose] = 'reserved';
    else badValues.push(key);
  }
  return { purposes, unknown, ...(badValues.length ? { badValues } : {}), ...(lowerCased ? { lowerCased } : {}) };
}
