//! The macro that turns the catalog's rows into [`Family`](crate::Family) and
//! [`Rule`](crate::Rule).

/// Declares `Family` and `Rule` from one list: per family its variant, its `rules.md` name
/// and a title, then per rule its variant, id, effect, source and summary, in the order of
/// `rules.md`.
macro_rules! catalog {
    ($(
        $family:ident $name:literal $title:literal {
            $($variant:ident => $id:literal, $effect:ident, $source:literal, $summary:literal;)*
        }
    )*) => {
        /// A family of rules: the part of a rule id before the dash (`rules.md` "Counts").
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Family {
            $(
                #[doc = concat!($name, ": ", $title)]
                $family,
            )*
        }

        impl Family {
            /// Every family, in the order of `rules.md`.
            pub const ALL: &'static [Family] = &[$(Family::$family),*];

            /// The id prefix, e.g. `"BAP"`.
            pub const fn name(self) -> &'static str {
                match self { $(Family::$family => $name),* }
            }

            /// What the family covers.
            pub const fn title(self) -> &'static str {
                match self { $(Family::$family => $title),* }
            }

            /// The family named `name`, e.g. `"BAP"`.
            pub fn from_name(name: &str) -> Option<Family> {
                match name {
                    $($name => Some(Family::$family),)*
                    _ => None,
                }
            }

            /// The family's rules, in catalog order.
            pub fn rules(self) -> impl Iterator<Item = Rule> {
                Rule::ALL.iter().copied().filter(move |r| r.family() == self)
            }
        }

        /// A client check or host duty, by its `rules.md` id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Rule {
            $($(
                #[doc = concat!($id, ": ", $summary, " (", $source, ")")]
                $variant,
            )*)*
        }

        impl Rule {
            /// Every rule of the catalog, in the order of `rules.md`.
            pub const ALL: &'static [Rule] = &[$($(Rule::$variant),*),*];

            /// The stable id, e.g. `"BAP-01"`.
            pub const fn id(self) -> &'static str {
                match self { $($(Rule::$variant => $id,)*)* }
            }

            /// The family the id belongs to.
            pub const fn family(self) -> Family {
                match self { $($(Rule::$variant => Family::$family,)*)* }
            }

            /// What the real client does when the rule is broken.
            pub const fn effect(self) -> Effect {
                match self { $($(Rule::$variant => Effect::$effect,)*)* }
            }

            /// The page section the rule comes from.
            pub const fn source(self) -> &'static str {
                match self { $($(Rule::$variant => $source,)*)* }
            }

            /// One line on what the rule says.
            pub const fn summary(self) -> &'static str {
                match self { $($(Rule::$variant => $summary,)*)* }
            }

            /// The rule with id `id`, e.g. `"BAP-01"`.
            pub fn from_id(id: &str) -> Option<Rule> {
                match id {
                    $($($id => Some(Rule::$variant),)*)*
                    _ => None,
                }
            }
        }
    };
}
