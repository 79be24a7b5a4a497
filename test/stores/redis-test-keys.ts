// Each test works under its own key prefix on the shared test Redis, and deletes its keys after.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export function redisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) throw new Error('REDIS_URL is not set (the vitest global setup sets it)');
  return url;
}

export function uniquePrefix(name: string): string {
  return `rg-test:${name}:${randomUUID().slice(0, 8)}:`;
}

/** Delete every key under `prefix`; returns how many there were. */
export async function deleteKeys(prefix: string, url = redisUrl()): Promise<number> {
  const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await c.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await c.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await c.del(...keys);
    } while (cursor !== '0');
  } finally {
    c.disconnect();
  }
  return deleted;
}
