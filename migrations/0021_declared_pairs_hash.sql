-- A digest of the declaration pairs stored for a repository (0020): a push whose
-- graph pairs declarations with code as before writes none of them again.
ALTER TABLE repositories ADD COLUMN declared_pairs_hash BIGINT;
