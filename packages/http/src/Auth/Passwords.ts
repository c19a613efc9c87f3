/**
 * Password hashing with scrypt from `node:crypto` (memory-hard; runs on libuv's thread pool).
 * Stored as `scrypt$N$r$p$salt$hash`, so parameters can be raised later without breaking old hashes.
 */
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"

const N = 16384
const R = 8
const P = 1
const KEY_LENGTH = 64

const derive = (password: string, salt: Buffer, n: number, r: number, p: number, length: number) =>
  Effect.async<Buffer, never>((resume) => {
    crypto.scrypt(password.normalize("NFKC"), salt, length, { N: n, r, p, maxmem: 256 * n * r }, (error, key) => {
      resume(error ? Effect.die(error) : Effect.succeed(key))
    })
  })

export const hashPassword = (password: string): Effect.Effect<string> => {
  const salt = crypto.randomBytes(16)
  return Effect.map(
    derive(password, salt, N, R, P, KEY_LENGTH),
    (key) => `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`
  )
}

export const verifyPassword = (password: string, stored: string): Effect.Effect<boolean> => {
  const [scheme, n, r, p, salt, hash] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || hash === undefined) return Effect.succeed(false)
  const expected = Buffer.from(hash, "base64")
  return Effect.map(
    derive(password, Buffer.from(salt, "base64"), Number(n), Number(r), Number(p), expected.length),
    (key) => crypto.timingSafeEqual(key, expected)
  )
}

/** Verified against when the e-mail is unknown, so a login takes as long either way. */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString("base64")}$${
  Buffer.alloc(KEY_LENGTH).toString("base64")
}`
