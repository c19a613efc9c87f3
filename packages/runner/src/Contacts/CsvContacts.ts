/**
 * Reading a contacts CSV (with `csv-parse`): quoted fields with commas, quotes and newlines, CRLF
 * or LF, a UTF-8 byte-order mark, blank lines. Headers match case-insensitively with spaces and
 * underscores alike; unknown columns are kept for the contact's metadata.
 *
 * Row numbers are what a spreadsheet shows: the header is row 1, the next record row 2, and a
 * blank line is a row too (it is skipped, not reported). A quoted field spanning lines is one row.
 */
import { MAX_CONTACTS_PER_IMPORT, NAME_HEADERS, PHONE_HEADERS } from "@voiceagent/domain/Contacts"
import { parse } from "csv-parse/sync"
import * as Either from "effect/Either"

export interface CsvContactRow {
  readonly row: number
  readonly phone: string
  readonly name: string | undefined
  readonly email: string | undefined
  /** The metadata cell parsed, merged over the unknown columns; `invalid` when the cell is not a JSON object. */
  readonly metadata: Record<string, unknown> | "invalid"
}

export type CsvProblem =
  | { readonly _tag: "InvalidCsv"; readonly message: string }
  | { readonly _tag: "MissingPhoneColumn"; readonly headers: ReadonlyArray<string> }
  | { readonly _tag: "TooManyRows"; readonly rows: number }

export const normalizeHeader = (header: string): string => header.trim().toLowerCase().replace(/[\s_]+/g, "_")

const columnOf = (headers: ReadonlyArray<string>, aliases: ReadonlyArray<string>): number => {
  for (const alias of aliases) {
    const index = headers.indexOf(alias)
    if (index !== -1) return index
  }
  return -1
}

const isBlank = (record: ReadonlyArray<string>) => record.every((cell) => cell.trim() === "")

const parseMetadataCell = (cell: string | undefined): Record<string, unknown> | "invalid" => {
  if (cell === undefined || cell.trim() === "") return {}
  try {
    const value: unknown = JSON.parse(cell)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : "invalid"
  } catch {
    return "invalid"
  }
}

export const parseContactsCsv = (text: string): Either.Either<ReadonlyArray<CsvContactRow>, CsvProblem> => {
  let records: Array<Array<string>>
  try {
    records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false, trim: false })
  } catch (error) {
    return Either.left({ _tag: "InvalidCsv", message: `The file is not valid CSV: ${(error as Error).message}` })
  }
  const headerIndex = records.findIndex((record) => !isBlank(record))
  if (headerIndex === -1) return Either.left({ _tag: "InvalidCsv", message: "The file has no header row" })
  const rawHeaders = records[headerIndex]!
  const headers = rawHeaders.map(normalizeHeader)
  const phone = columnOf(headers, PHONE_HEADERS)
  if (phone === -1) return Either.left({ _tag: "MissingPhoneColumn", headers: rawHeaders })
  const name = columnOf(headers, NAME_HEADERS)
  const email = columnOf(headers, ["email"])
  const metadata = columnOf(headers, ["metadata"])
  const known = new Set([phone, name, email, metadata])

  const data = records.slice(headerIndex + 1)
  const contactRows = data.filter((record) => !isBlank(record)).length
  if (contactRows > MAX_CONTACTS_PER_IMPORT) return Either.left({ _tag: "TooManyRows", rows: contactRows })

  const rows: Array<CsvContactRow> = []
  data.forEach((record, i) => {
    if (isBlank(record)) return
    const extra: Record<string, unknown> = {}
    rawHeaders.forEach((header, column) => {
      const value = record[column]
      if (!known.has(column) && value !== undefined && value.trim() !== "" && header.trim() !== "") {
        extra[header.trim()] = value
      }
    })
    const parsed = parseMetadataCell(metadata === -1 ? undefined : record[metadata])
    rows.push({
      row: headerIndex + i + 2,
      phone: record[phone] ?? "",
      name: name === -1 ? undefined : record[name],
      email: email === -1 ? undefined : record[email],
      metadata: parsed === "invalid" ? "invalid" : { ...extra, ...parsed }
    })
  })
  return Either.right(rows)
}
