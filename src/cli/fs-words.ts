// File-system errors in words for a person. Node's own message names the system call and the
// code ("EISDIR: illegal operation on a directory, read"), not what is wrong with the path given.

/** What is wrong, in words (`it is a directory, not a file`); Node's message for a code not
 *  listed here. */
export function fsProblem(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'there is no such file or directory';
    case 'EISDIR':
      return 'it is a directory, not a file';
    case 'ENOTDIR':
      return 'a part of its path is a file, not a directory';
    case 'EEXIST':
      return 'it exists already';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'the disk is full';
    case 'ELOOP':
      return 'its symbolic links go round in a loop';
    case 'ENAMETOOLONG':
      return 'the name is too long';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open';
    default:
      return e?.message ?? String(err);
  }
}
