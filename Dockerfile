# syntax=docker/dockerfile:1
# Builds without a database (no query is checked against one at compile time).

FROM rust:1-bookworm AS build
WORKDIR /src
# Dependencies first, in their own layer: rebuilt only when Cargo.toml or Cargo.lock change.
COPY Cargo.toml Cargo.lock ./
COPY crates/engine/Cargo.toml crates/engine/build.rs crates/engine/
COPY crates/engine/src/indexer/extract/children.c crates/engine/src/indexer/extract/children.c
RUN mkdir -p src benches crates/engine/src && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs crates/engine/src/lib.rs \
    && for b in engine process store repositories pr app mcp workers org hostile components links; do echo 'fn main() {}' > benches/$b.rs; done \
    && cargo build --release --locked --bin blast-radius && rm -rf src benches crates/engine/src
COPY crates crates
COPY src src
COPY build.rs build.rs
COPY migrations migrations
# The App manifest is compiled in: /setup posts it to GitHub.
COPY app-manifest.yml app-manifest.yml
COPY benches benches
RUN touch src/main.rs src/lib.rs crates/engine/src/lib.rs && cargo build --release --locked --bin blast-radius

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 blast
COPY --from=build /src/target/release/blast-radius /usr/local/bin/blast-radius
USER blast
WORKDIR /app
ENV PORT=8080 RUST_LOG=blast_radius=info
EXPOSE 8080
CMD ["blast-radius", "serve", "--no-migrate"]
