import { createHash, timingSafeEqual } from 'node:crypto';

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * A check of `Authorization: Bearer <token>` headers against `token`, in
 * constant time (both sides hashed first), so timing does not reveal how much
 * of a guess was right. Shared by `skate executor serve` and `skate serve`.
 */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer (.+)$/.exec(authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };
}
