/** What the loopback fakes of outside providers (Twilio, messaging, embeddings) share. */
import type * as http from "node:http"

/** The whole request body as UTF-8 text. */
export const readBody = (request: http.IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/** JSON.parse without throwing: a fake answers malformed bodies with the provider's own error. */
export const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}
