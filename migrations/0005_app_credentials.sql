-- The App's credentials when `/setup` created it from its manifest: one row. The secrets
-- (private key, webhook secret, OAuth client secret) are sealed with ChaCha20-Poly1305
-- under BLAST_CREDENTIALS_KEY, which the database never sees.
-- (Rules as in 0001: no NOT NULL column without a DEFAULT.)
CREATE TABLE app_credentials (
    singleton BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
    app_id BIGINT NOT NULL DEFAULT 0,
    slug TEXT NOT NULL DEFAULT '',
    html_url TEXT NOT NULL DEFAULT '',
    owner_login TEXT NOT NULL DEFAULT '',
    nonce BYTEA NOT NULL DEFAULT '\x',
    sealed BYTEA NOT NULL DEFAULT '\x',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The `state` of each setup flow begun, checked once when GitHub sends the person back:
-- a callback whose state this server did not hand out is refused.
CREATE TABLE setup_states (
    state TEXT PRIMARY KEY,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
