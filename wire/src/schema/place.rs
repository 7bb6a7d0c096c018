//! Where the walker is in a body: a field path such as `rows[2].revision`, kept as a
//! chain of steps on the walker's stack and written out only when an error or a trace
//! line needs it, so a walk that succeeds allocates no path (issue 12: the emulated client
//! decodes every slot body it is sent).

use std::fmt;

/// A place in a body: the root, or a step from another place.
#[derive(Debug, Clone, Copy)]
pub enum Place<'a> {
    /// The body itself (an empty path).
    Root,
    /// A named field of the record at the place.
    Field(&'a Place<'a>, &'static str),
    /// An element of the array at the place.
    Index(&'a Place<'a>, u64),
    /// Text after the place's path: `?` for a presence bit, `.count` for a count.
    Suffix(&'a Place<'a>, &'static str),
}

impl<'a> Place<'a> {
    /// The field `name` of this place.
    pub fn field(&'a self, name: &'static str) -> Self {
        Place::Field(self, name)
    }

    /// Element `i` of this place.
    pub fn index(&'a self, i: u64) -> Self {
        Place::Index(self, i)
    }

    /// This place's path followed by `suffix`.
    pub fn suffix(&'a self, suffix: &'static str) -> Self {
        Place::Suffix(self, suffix)
    }
}

impl fmt::Display for Place<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Root => Ok(()),
            Place::Field(Place::Root, name) => f.write_str(name),
            Place::Field(parent, name) => write!(f, "{parent}.{name}"),
            Place::Index(parent, i) => write!(f, "{parent}[{i}]"),
            Place::Suffix(parent, suffix) => write!(f, "{parent}{suffix}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_as_the_walker_names_them() {
        let root = Place::Root;
        let rows = root.field("rows");
        let second = rows.index(2);
        assert_eq!(second.field("revision").to_string(), "rows[2].revision");
        assert_eq!(rows.suffix("?").to_string(), "rows?");
        assert_eq!(rows.suffix(".count").to_string(), "rows.count");
        assert_eq!(root.to_string(), "");
    }
}
