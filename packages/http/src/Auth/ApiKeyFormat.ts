/**
 * API key format: `aok_` + 30 random base62 characters (178 bits) + a 6-character base62 CRC32
 * checksum of everything before it. The checksum lets a secret scanner (or this server, before any
 * database work) recognise a real key offline, as GitHub's token format does.
 */
import * as crypto from "node:crypto"
import * as zlib from "node:zlib"

export const KEY_PREFIX = "aok_"
const RANDOM_LENGTH = 30
const CHECKSUM_LENGTH = 6
export const KEY_LENGTH = KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH
const DISPLAY_LENGTH = KEY_PREFIX.length + 8

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`)

/** Uniform base62 characters by rejection sampling (248 = 4 × 62). */
const randomBase62 = (length: number): string => {
  let out = ""
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]
    }
  }
  return out
}

const toBase62 = (value: number, width: number): string => {
  let out = ""
  let n = value
  while (n > 0) {
    out = ALPHABET[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out.padStart(width, "0")
}

const checksumOf = (body: string): string => toBase62(zlib.crc32(body) >>> 0, CHECKSUM_LENGTH)

export const generateApiKey = (): string => {
  const body = KEY_PREFIX + randomBase62(RANDOM_LENGTH)
  return body + checksumOf(body)
}

/** True when `key` has the shape of a key and its checksum matches. No secret is involved. */
export const isWellFormedApiKey = (key: string): boolean =>
  KEY_SHAPE.test(key) && checksumOf(key.slice(0, -CHECKSUM_LENGTH)) === key.slice(-CHECKSUM_LENGTH)

export const looksLikeApiKey = (credential: string): boolean => credential.startsWith(KEY_PREFIX)

/** Keys are stored only as SHA-256: fast enough for every request, and a 178-bit secret needs no slow hash. */
export const hashApiKey = (key: string): Buffer => crypto.createHash("sha256").update(key, "utf8").digest()

// Node 20.12 and later hash in one call, without a Hash object (Node 20.11 has no crypto.hash).
const oneShot = typeof crypto.hash === "function" ? crypto.hash : undefined

/** `hashApiKey` in base64: what a key is known by in memory (the credential cache, on every request). */
export const apiKeyDigest = (key: string): string =>
  oneShot !== undefined ? oneShot("sha256", key, "base64") : hashApiKey(key).toString("base64")

export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_LENGTH)

/** The secret that signs call-result webhooks for a key. */
export const generateSigningSecret = (): string => `whsec_${crypto.randomBytes(32).toString("base64url")}`
