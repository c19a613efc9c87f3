import { PGlite } from "@electric-sql/pglite"
import pg from "pg"

/** Adds `n` contacts to a list with one SQL statement, straight into the database. */
export const seedContacts = async (
  target: { readonly pgliteDir: string } | { readonly url: string },
  list: { readonly id: string; readonly tenantId: string },
  n: number
) => {
  const statements = [
    `INSERT INTO contacts (id, tenant_id, contact_list_id, phone_number, name, metadata)
     SELECT gen_random_uuid(), '${list.tenantId}', '${list.id}', '+1212' || lpad(i::text, 7, '0'), 'Contact ' || i, '{}'
     FROM generate_series(1, ${n}) AS i`,
    `UPDATE contact_lists SET contact_count = (SELECT count(*) FROM contacts WHERE contact_list_id = '${list.id}') ` +
    `WHERE id = '${list.id}'`,
    "VACUUM ANALYZE contacts"
  ]
  if ("pgliteDir" in target) {
    const db = new PGlite(target.pgliteDir)
    await db.waitReady
    for (const statement of statements) await db.exec(statement)
    await db.close()
  } else {
    const client = new pg.Client({ connectionString: target.url })
    await client.connect()
    for (const statement of statements) await client.query(statement)
    await client.end()
  }
}
