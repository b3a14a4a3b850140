//! The page's entry (wasm32, the `web` feature): `scripts/web build` makes it a static folder.

fn main() {
    flagsim::web::start();
}
