/**
 * Rows read back from our own tables already satisfy the resource schemas (every write went through
 * them), so building the resource classes skips re-validation on the read path; responses are still
 * encoded through the schemas.
 */
export const fromDatabase = { disableValidation: true } as const
