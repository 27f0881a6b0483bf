//! A bound on the values a YAML text expands to, checked before it is turned into a
//! [`yaml_serde::Value`]. Aliases make a few bytes stand for any number of values (one
//! anchor used by 4,000 aliases in 28 KB is tens of millions of them): the values are
//! counted as the parser hands them out, aliases replayed, and the count stops at the
//! bound, so a bomb costs what its bytes cost and is refused.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// Values (scalars, sequences, mappings, each alias expanded) a configuration may hold:
/// a real one holds a few dozen.
pub const MAX_VALUES: usize = 10_000;

/// Whether `text` expands to more than `max` values. A text that is not valid YAML is
/// not judged here (false): the parse proper says what is wrong with it.
pub fn expands_past(text: &str, max: usize) -> bool {
    let counter = Counter {
        left: Cell::new(max),
        over: Cell::new(false),
    };
    let _ = Count(&counter).deserialize(yaml_serde::Deserializer::from_str(text));
    counter.over.get()
}

struct Counter {
    left: Cell<usize>,
    over: Cell<bool>,
}

impl Counter {
    /// Counts one value; an error (which stops the parse) once past the bound.
    fn one<E: de::Error>(&self) -> Result<(), E> {
        match self.left.get().checked_sub(1) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.over.set(true);
                Err(E::custom("too many values"))
            }
        }
    }
}

/// Reads one value and everything in it, holding nothing but the count.
#[derive(Clone, Copy)]
struct Count<'c>(&'c Counter);

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

macro_rules! scalars {
    ($($name:ident: $t:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $t) -> Result<(), E> {
            self.0.one()
        })*
    };
}

impl<'de> Visitor<'de> for Count<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    scalars!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_i128: i128,
        visit_u128: u128, visit_f64: f64, visit_str: &str, visit_bytes: &[u8]);

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.0.one()
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.0.one()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.one()?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.one()?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }

    /// A tagged value (`!tag value`): the tag, then the value.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use serde::de::VariantAccess;
        let ((), variant) = data.variant_seed(self)?;
        variant.newtype_variant_seed(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One anchor of `items` values, used by `aliases` aliases.
    fn bomb(items: usize, aliases: usize) -> String {
        let anchored = vec!["x"; items].join(", ");
        let uses = vec!["*a"; aliases].join(", ");
        format!("paths:\n  include: &a [{anchored}]\n  exclude: [{uses}]\n")
    }

    #[test]
    fn a_real_configuration_is_within_the_bound() {
        let text = "paths:\n  include: [\"src/**\"]\n  exclude: [\"**/*.test.ts\"]\ndepth: 3\noutputs:\n  inline: false\ncommands_from: [OWNER, MEMBER]\n";
        assert!(!expands_past(text, MAX_VALUES));
        // A few aliases are values like any other.
        let text = "paths:\n  include: &src [\"src/**\"]\n  exclude: *src\n";
        assert!(!expands_past(text, MAX_VALUES));
    }

    #[test]
    fn an_alias_bomb_is_past_the_bound() {
        // 28 KB standing for 20 million values.
        let text = bomb(5_000, 4_000);
        assert!(text.len() < 64 * 1024, "{}", text.len());
        assert!(expands_past(&text, MAX_VALUES));
        // Counted as expanded: just past the bound, and just within it.
        assert!(expands_past(&bomb(10, 20), 200));
        assert!(!expands_past(&bomb(10, 20), 250));
    }

    #[test]
    fn nested_anchors_are_counted_as_expanded() {
        // The billion laughs: each level doubles ten times.
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for level in 1..9 {
            let uses = vec![format!("*a{}", level - 1); 10].join(", ");
            text.push_str(&format!("a{level}: &a{level} [{uses}]\n"));
        }
        assert!(expands_past(&text, MAX_VALUES));
    }

    #[test]
    fn invalid_yaml_is_left_to_the_parse() {
        assert!(!expands_past("paths: [unclosed", MAX_VALUES));
        assert!(!expands_past("a: 1\n---\nb: 2\n", MAX_VALUES));
    }
}
