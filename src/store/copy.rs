//! Rows encoded for `COPY ... FROM STDIN (FORMAT binary)`: bulk writes without one round
//! trip per row, and without the server parsing text (bytea especially).
//! Each value must match its column's type exactly (int8, int4, text, bytea, bool).

use sqlx::PgConnection;

/// A buffer of COPY rows in PostgreSQL's binary format.
pub struct CopyBuf {
    buf: Vec<u8>,
    /// Where the current row's field count goes.
    row_start: Option<usize>,
    fields: i16,
    rows: usize,
}

const SIGNATURE: &[u8] = b"PGCOPY\n\xff\r\n\0";

impl CopyBuf {
    pub fn new() -> Self {
        let mut buf = Vec::with_capacity(1 << 16);
        buf.extend_from_slice(SIGNATURE);
        buf.extend_from_slice(&0i32.to_be_bytes()); // flags
        buf.extend_from_slice(&0i32.to_be_bytes()); // header extension length
        CopyBuf {
            buf,
            row_start: None,
            fields: 0,
            rows: 0,
        }
    }

    fn field(&mut self, len: i32) {
        if self.row_start.is_none() {
            self.row_start = Some(self.buf.len());
            self.buf.extend_from_slice(&0i16.to_be_bytes());
        }
        self.fields += 1;
        self.buf.extend_from_slice(&len.to_be_bytes());
    }

    /// A BIGINT.
    pub fn int8(&mut self, v: i64) -> &mut Self {
        self.field(8);
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// An INT.
    pub fn int4(&mut self, v: i32) -> &mut Self {
        self.field(4);
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    pub fn opt_int4(&mut self, v: Option<i32>) -> &mut Self {
        match v {
            Some(v) => self.int4(v),
            None => self.null(),
        }
    }

    /// A TEXT, through the store's rule for text ([`super::text::storable`]): a NUL
    /// in it would fail the whole COPY.
    pub fn text(&mut self, s: &str) -> &mut Self {
        self.bytes(super::text::storable(s).as_bytes())
    }

    pub fn opt_text(&mut self, s: Option<&str>) -> &mut Self {
        match s {
            Some(s) => self.text(s),
            None => self.null(),
        }
    }

    /// A BYTEA (or the bytes of a TEXT).
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.field(i32::try_from(v.len()).expect("a field under 2 GiB"));
        self.buf.extend_from_slice(v);
        self
    }

    /// A TEXT[] of one dimension (each element through the rule for text).
    pub fn text_array(&mut self, items: &[&str]) -> &mut Self {
        const TEXT_OID: i32 = 25;
        let mut v = Vec::new();
        let dims: i32 = if items.is_empty() { 0 } else { 1 };
        v.extend_from_slice(&dims.to_be_bytes());
        v.extend_from_slice(&0i32.to_be_bytes()); // no NULL element
        v.extend_from_slice(&TEXT_OID.to_be_bytes());
        if !items.is_empty() {
            let n = i32::try_from(items.len()).expect("fewer than 2^31 elements");
            v.extend_from_slice(&n.to_be_bytes());
            v.extend_from_slice(&1i32.to_be_bytes()); // lower bound
            for item in items {
                let item = super::text::storable(item);
                let len = i32::try_from(item.len()).expect("an element under 2 GiB");
                v.extend_from_slice(&len.to_be_bytes());
                v.extend_from_slice(item.as_bytes());
            }
        }
        self.bytes(&v)
    }

    pub fn boolean(&mut self, v: bool) -> &mut Self {
        self.field(1);
        self.buf.push(u8::from(v));
        self
    }

    pub fn null(&mut self) -> &mut Self {
        self.field(-1);
        self
    }

    pub fn end_row(&mut self) {
        let start = self.row_start.take().expect("a row has fields");
        self.buf[start..start + 2].copy_from_slice(&self.fields.to_be_bytes());
        self.fields = 0;
        self.rows += 1;
    }

    /// Appends another buffer's rows (in parallel builds, one buffer per worker).
    pub fn append(&mut self, other: &CopyBuf) {
        assert!(
            self.row_start.is_none() && other.row_start.is_none(),
            "whole rows"
        );
        self.buf
            .extend_from_slice(&other.buf[SIGNATURE.len() + 8..]);
        self.rows += other.rows;
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// A digest of the rows written so far: equal buffers, equal digests.
    pub fn digest(&self) -> i64 {
        xxhash_rust::xxh3::xxh3_64(&self.buf) as i64
    }

    /// The whole stream, trailer included.
    pub fn finish(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.buf.len() + 2);
        out.extend_from_slice(&self.buf);
        out.extend_from_slice(&(-1i16).to_be_bytes());
        out
    }
}

impl Default for CopyBuf {
    fn default() -> Self {
        CopyBuf::new()
    }
}

/// The statement timeout of a transaction that copies rows in: a large repository's
/// edges (millions of rows) and the index builds after them must not hit the pool's
/// [`STATEMENT_TIMEOUT`](super::STATEMENT_TIMEOUT), yet a wedged copy still ends.
pub const BULK_STATEMENT_TIMEOUT: &str = "30min";

/// Streams rows into a table with COPY. Inside a transaction, lifts the statement timeout
/// to [`BULK_STATEMENT_TIMEOUT`] for the rest of it (`SET LOCAL`; outside one it changes
/// nothing).
pub(super) async fn copy_in(
    db: &mut PgConnection,
    table: &str,
    columns: &str,
    rows: &CopyBuf,
) -> sqlx::Result<u64> {
    if rows.rows() == 0 {
        return Ok(0);
    }
    sqlx::query(&format!(
        "SET LOCAL statement_timeout = '{BULK_STATEMENT_TIMEOUT}'"
    ))
    .execute(&mut *db)
    .await?;
    let mut copy = db
        .copy_in_raw(&format!(
            "COPY {table} ({columns}) FROM STDIN (FORMAT binary)"
        ))
        .await?;
    // Chunks keep each message small.
    for chunk in rows.finish().chunks(1 << 20) {
        copy.send(chunk).await?;
    }
    copy.finish().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_framed_with_field_counts() {
        let mut b = CopyBuf::new();
        b.int4(7).text("a\tb").null();
        b.end_row();
        let out = b.finish();
        assert!(out.starts_with(SIGNATURE));
        let row = &out[SIGNATURE.len() + 8..];
        assert_eq!(&row[..2], &3i16.to_be_bytes());
        assert_eq!(&row[2..6], &4i32.to_be_bytes());
        assert_eq!(&row[6..10], &7i32.to_be_bytes());
        assert_eq!(&row[10..14], &3i32.to_be_bytes());
        assert_eq!(&row[14..17], b"a\tb");
        assert_eq!(&row[17..21], &(-1i32).to_be_bytes());
        assert_eq!(&row[21..], &(-1i16).to_be_bytes());
        assert_eq!(b.rows(), 1);
    }
}
