-- The number of open call reservations, kept on the wallet row by the ledger's own statements: a
-- reservation checks the concurrent-call limit against the row it locks, in the same statement that
-- takes it, instead of counting the open reservations in a transaction of its own.
ALTER TABLE wallets ADD COLUMN open_calls integer NOT NULL DEFAULT 0 CHECK (open_calls >= 0);

UPDATE wallets w SET open_calls = c.n
FROM (SELECT tenant_id, count(*) AS n FROM reservations WHERE status = 'open' AND purpose = 'call' GROUP BY tenant_id) c
WHERE c.tenant_id = w.tenant_id;
