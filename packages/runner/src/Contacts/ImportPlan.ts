import { type InvalidRow, validateContact, type ValidContact } from "@voiceagent/domain/Contacts"
import * as Either from "effect/Either"

export interface CandidateRow {
  readonly row: number
  readonly phone: string
  readonly name?: string | null | undefined
  readonly email?: string | null | undefined
  readonly metadata?: unknown
}

export interface ImportPlan {
  readonly valid: ReadonlyArray<{ readonly row: number; readonly phone: string; readonly contact: ValidContact }>
  readonly invalid: ReadonlyArray<InvalidRow>
}

/** Validates every row and marks a phone seen earlier in the same batch as `duplicate`. */
export const planImport = (rows: ReadonlyArray<CandidateRow>, defaultCountry: string | null): ImportPlan => {
  const seen = new Set<string>()
  const valid: Array<ImportPlan["valid"][number]> = []
  const invalid: Array<InvalidRow> = []
  for (const candidate of rows) {
    const checked = validateContact(
      {
        phone: candidate.phone,
        name: candidate.name,
        email: candidate.email,
        metadata: candidate.metadata === "invalid" ? [] : candidate.metadata
      },
      defaultCountry
    )
    if (Either.isLeft(checked)) {
      invalid.push({ row: candidate.row, phone: candidate.phone, reason: checked.left })
    } else if (seen.has(checked.right.phoneNumber)) {
      invalid.push({ row: candidate.row, phone: candidate.phone, reason: "duplicate" })
    } else {
      seen.add(checked.right.phoneNumber)
      valid.push({ row: candidate.row, phone: candidate.phone, contact: checked.right })
    }
  }
  return { valid, invalid }
}
