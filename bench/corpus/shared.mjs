// Where the shared real-world corpus is: `../shared/corpus/robots` beside the project's root (a
// fresh clone elsewhere has none; the benches then read the committed sample), or ROBOTS_CORPUS.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SHARED_CORPUS = process.env.ROBOTS_CORPUS ?? path.join(root, '..', 'shared', 'corpus', 'robots');
