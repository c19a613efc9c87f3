/**
 * Reading the `Authorization` header. The scheme is case-insensitive (RFC 9110); the credential is
 * everything after it. A credential with whitespace inside (`Bearer Bearer aok_…`, a key pasted with
 * its scheme) is kept as is, so it fails as an unknown key rather than being silently repaired.
 */

export type PresentedCredential =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Malformed" }
  | { readonly _tag: "ApiKey"; readonly key: string }
  | { readonly _tag: "Session"; readonly token: string }

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

export const parseAuthorization = (header: string | undefined): PresentedCredential => {
  if (header === undefined || header.trim() === "") return { _tag: "Missing" }
  const match = /^\s*bearer(?:\s+(.*))?$/is.exec(header)
  if (match === null) return { _tag: "Malformed" }
  const credential = (match[1] ?? "").trim()
  if (credential === "") return { _tag: "Malformed" }
  if (JWT_SHAPE.test(credential)) return { _tag: "Session", token: credential }
  // Anything else is treated as an attempted API key, and so fails as "Invalid API key" when unknown.
  return { _tag: "ApiKey", key: credential }
}
