// Robots directives of X-Robots-Tag headers and `<meta name="robots">` (Google's documented syntax,
// plus the `noai` / `noimageai` convention): which purposes each reserves.
import type { Purpose } from './types.js';

/** Directives whose own value holds a colon, so `name:` before them is not a user-agent scope. */
const VALUED = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/** What a directive reserves. `noimageai` reserves AI use only of images. */
export function directivePurposes(directive: string, isImage: boolean): Partial<Record<Purpose, 'reserved'>> {
  switch (directive) {
    case 'noai':
      return { 'ai-train': 'reserved', 'ai-input': 'reserved' };
    case 'noimageai':
      return isImage ? { 'ai-train': 'reserved', 'ai-input': 'reserved' } : {};
    case 'noindex':
    case 'none':
      return { search: 'reserved' };
    default:
      return {};
  }
}

/**
 * The directives of one X-Robots-Tag value that apply to a crawler named by `tokens` (lower-case):
 * unscoped ones, and those after a `name:` scope equal to one of the tokens. `googlebot: noindex,
 * nofollow` scopes both directives to googlebot, as Google reads a comma list after a scope.
 */
export function applicableDirectives(value: string, tokens: readonly string[]): string[] {
  const out: string[] = [];
  let scope: string | null = null;
  for (const raw of value.split(',')) {
    let item = raw.trim().toLowerCase();
    const colon = item.indexOf(':');
    if (colon > 0) {
      const name = item.slice(0, colon).trim();
      if (!VALUED.has(name) && /^[a-z0-9_-]+$/.test(name)) {
        scope = name;
        item = item.slice(colon + 1).trim();
      }
    }
    if (item === '') continue;
    const name = item.split(':')[0]!.trim();
    if (scope === null || tokens.includes(scope)) out.push(name);
  }
  return out;
}
