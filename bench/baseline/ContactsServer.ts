/**
 * The baseline for the contacts benchmarks: a plain `node:http` server doing the same work as the
 * platform's CSV upload (multipart, CSV parsing, phone normalisation, e-mail check, one insert in a
 * transaction with the list's count) and contacts page read, without a framework.
 * BACKEND=pg uses `pg` on DATABASE_URL; BACKEND=pglite opens PGLITE_DIR in-process.
 */
import { PGlite } from "@electric-sql/pglite"
import { parse } from "csv-parse/sync"
import { parsePhoneNumberFromString } from "libphonenumber-js/max"
import * as crypto from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import pg from "pg"

interface Db {
  readonly query: (text: string, params: Array<unknown>) => Promise<Array<Record<string, any>>>
  readonly transaction: <A>(f: (query: Db["query"]) => Promise<A>) => Promise<A>
}

const connect = async (): Promise<Db> => {
  if (process.env["BACKEND"] === "pglite") {
    const db = new PGlite(process.env["PGLITE_DIR"]!)
    await db.waitReady
    return {
      query: async (text, params) => (await db.query<Record<string, any>>(text, params)).rows,
      transaction: (f) =>
        db.transaction((tx) => f(async (text, params) => (await tx.query<Record<string, any>>(text, params)).rows))
    }
  }
  const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: 10 })
  return {
    query: async (text, params) => (await pool.query(text, params)).rows,
    transaction: async (f) => {
      const client = await pool.connect()
      try {
        await client.query("BEGIN")
        const result = await f(async (text, params) => (await client.query(text, params)).rows)
        await client.query("COMMIT")
        return result
      } catch (error) {
        await client.query("ROLLBACK")
        throw error
      } finally {
        client.release()
      }
    }
  }
}

const db = await connect()
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

const readBody = (req: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject)
  })

/** The file part of a single-part multipart body. */
const filePart = (body: Buffer, contentType: string): string => {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType)!
  const marker = `--${boundary[1] ?? boundary[2]}`
  const text = body.toString("utf8")
  const start = text.indexOf("\r\n\r\n", text.indexOf(marker)) + 4
  return text.slice(start, text.indexOf(`\r\n${marker}`, start))
}

const upload = async (listId: string, tenantId: string, csv: string) => {
  const [header, ...rows] = parse(csv, { bom: true, relax_column_count: true }) as Array<Array<string>>
  const phone = header!.findIndex((h) => h.trim().toLowerCase() === "phone")
  const name = header!.findIndex((h) => h.trim().toLowerCase() === "name")
  const email = header!.findIndex((h) => h.trim().toLowerCase() === "email")
  const seen = new Set<string>()
  const valid: Array<Record<string, unknown>> = []
  let invalid = 0
  for (const row of rows) {
    const parsed = parsePhoneNumberFromString(row[phone] ?? "")
    const mail = email === -1 ? "" : row[email] ?? ""
    if (parsed === undefined || !parsed.isValid() || (mail !== "" && !EMAIL.test(mail)) || seen.has(parsed.number)) {
      invalid++
      continue
    }
    seen.add(parsed.number)
    valid.push({
      id: crypto.randomUUID(),
      tenant_id: tenantId,
      contact_list_id: listId,
      phone_number: parsed.number,
      name: name === -1 ? null : row[name],
      email: mail === "" ? null : mail,
      metadata: "{}"
    })
  }
  const imported = await db.transaction(async (query) => {
    await query("SELECT id FROM contact_lists WHERE id = $1 FOR UPDATE", [listId])
    const inserted = await query(
      `INSERT INTO contacts (id, tenant_id, contact_list_id, phone_number, name, email, metadata)
       SELECT id, tenant_id, contact_list_id, phone_number, name, email, metadata::jsonb
       FROM jsonb_to_recordset($1::jsonb)
         AS x(id uuid, tenant_id uuid, contact_list_id uuid, phone_number text, name text, email text, metadata text)
       ON CONFLICT (contact_list_id, phone_number) DO NOTHING RETURNING phone_number`,
      [JSON.stringify(valid)]
    )
    await query("UPDATE contact_lists SET contact_count = contact_count + $1 WHERE id = $2", [inserted.length, listId])
    return inserted.length
  })
  return { imported, skipped: rows.length - imported, invalid }
}

const server = http.createServer(async (req, res) => {
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
    res.end(text)
  }
  try {
    const url = new URL(req.url!, "http://baseline")
    const listId = url.searchParams.get("list")!
    // the same API-key check the platform does on every request
    const match = /^bearer\s+(\S+)$/i.exec(req.headers["authorization"] ?? "")
    const hash = crypto.createHash("sha256").update(match?.[1] ?? "").digest()
    const [key] = await db.query(
      `SELECT k.id, u.tenant_id FROM api_keys k JOIN users u ON u.id = k.user_id
       WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [hash]
    )
    if (key === undefined) return send(401, { error: "Invalid API key" })
    const [list] = await db.query(
      "SELECT id, contact_count FROM contact_lists WHERE id = $1 AND tenant_id = $2",
      [listId, key["tenant_id"]]
    )
    if (list === undefined) return send(404, { error: "not found" })
    if (req.method === "POST" && url.pathname === "/upload") {
      const body = await readBody(req)
      return send(200, await upload(listId, key["tenant_id"], filePart(body, req.headers["content-type"]!)))
    }
    if (req.method === "GET" && url.pathname === "/contacts") {
      const page = Number(url.searchParams.get("page") ?? 1)
      const limit = Number(url.searchParams.get("limit") ?? 25)
      const data = await db.query(
        `SELECT c.id, c.tenant_id, c.contact_list_id, c.phone_number, c.name, c.email, c.metadata, c.created_at,
          c.updated_at
         FROM contacts c
         JOIN (SELECT id FROM contacts WHERE contact_list_id = $1 ORDER BY id LIMIT $2 OFFSET $3) AS page
           ON page.id = c.id
         WHERE c.tenant_id = $4 ORDER BY c.id`,
        [listId, limit, (page - 1) * limit, key["tenant_id"]]
      )
      return send(200, { data, total: list["contact_count"], page, limit })
    }
    send(404, { error: "not found" })
  } catch (error) {
    send(500, { error: String(error) })
  }
})

server.listen(0, "127.0.0.1", () => {
  console.log(`baseline listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
