//! Parsing an op written in its declared format.

use acc_ir::attrs::AttrData;
use acc_ir::parser::lexer::Tok;
use acc_ir::parser::{CustomParse, OperationState, PResult, UnresolvedOperand};
use acc_ir::{AttrId, AttrKind, BlockId, InferInput, Sym, TypeData, TypeId};

use super::super::decl::{OpDecl, Quantifier, RelationKind, segment_property};
use super::{DeclaredSyntax, Elem, PUNCTUATION, buildable};

/// What parsing has collected so far, per declared group.
pub(super) struct ParseState<'s> {
    operands: Vec<Vec<UnresolvedOperand<'s>>>,
    operand_types: Vec<Option<Vec<TypeId>>>,
    result_types: Vec<Option<Vec<TypeId>>>,
    successors: Vec<Option<BlockId>>,
    props: Vec<(Sym, AttrId)>,
}

impl DeclaredSyntax {
    /// True when the optional group starting with `first` is present in the input.
    fn group_present(&self, cp: &CustomParse<'_, '_, '_>, first: &Elem) -> bool {
        match first {
            Elem::Attr(i) => {
                let AttrKind::Enum(full) = &self.decl.attributes[*i].kind else {
                    return false;
                };
                match cp.p.context_ref().enum_attr(full) {
                    Some(def) if def.int_storage.is_some() => {
                        cp.p.peek() == Tok::BareIdent
                            && def.cases.iter().any(|c| c == cp.p.tok_text())
                    }
                    Some(_) => matches!(cp.p.peek(), Tok::Less | Tok::HashId),
                    None => false,
                }
            }
            Elem::Literal(l) => match PUNCTUATION.iter().find(|(p, _)| p == l) {
                Some((_, tok)) => cp.p.peek() == *tok,
                None => cp.p.at_keyword(l),
            },
            Elem::Operand(_) => cp.p.peek() == Tok::ValueId,
            _ => false,
        }
    }

    fn parse_elems<'s>(
        &self,
        cp: &mut CustomParse<'_, 's, '_>,
        state: &mut OperationState,
        elems: &[Elem],
        st: &mut ParseState<'s>,
    ) -> PResult<()> {
        let d = &self.decl;
        for elem in elems {
            match elem {
                Elem::Literal(l) => match PUNCTUATION.iter().find(|(p, _)| p == l) {
                    Some((_, tok)) => cp.p.expect(*tok, &format!("'{l}'"))?,
                    None => cp.p.expect_keyword(l)?,
                },
                Elem::NoSpace => {}
                Elem::Operand(i) => {
                    let q = d.operands[*i].quantifier;
                    // A flexible group stops before the next op's result names.
                    let present = cp.p.peek() == Tok::ValueId && !cp.p.at_result_names();
                    if q == Quantifier::Single || present {
                        st.operands[*i].push(cp.p.parse_operand()?);
                        while q == Quantifier::Variadic && cp.p.peek() == Tok::Comma {
                            cp.p.try_consume(Tok::Comma);
                            st.operands[*i].push(cp.p.parse_operand()?);
                        }
                    }
                }
                Elem::OperandType(i) => {
                    let n = st.operands[*i].len();
                    st.operand_types[*i] = Some(parse_types(cp, n)?);
                }
                Elem::ResultType(i) => {
                    let n = match d.results[*i].quantifier {
                        Quantifier::Single => 1,
                        _ => usize::MAX,
                    };
                    st.result_types[*i] = Some(parse_types(cp, n)?);
                }
                Elem::AllOperandTypes => {
                    let n = st.operands.iter().map(Vec::len).sum();
                    let types = parse_types(cp, n)?;
                    self.split_operand_types(st, types);
                }
                Elem::AllResultTypes => {
                    let types = parse_types(cp, usize::MAX)?;
                    self.split_result_types(cp, st, types)?;
                }
                Elem::FunctionalType => {
                    let span = cp.p.tok_span();
                    let f = cp.p.parse_function_type()?;
                    let TypeData::Function { inputs, results } =
                        cp.p.context().type_data(f).clone()
                    else {
                        return cp.p.err_at(span, "expected a function type");
                    };
                    let n: usize = st.operands.iter().map(Vec::len).sum();
                    if inputs.len() != n {
                        return cp.p.err_at(
                            span,
                            format!(
                                "expected {n} operand types, but the function type has {}",
                                inputs.len()
                            ),
                        );
                    }
                    self.split_operand_types(st, inputs.to_vec());
                    self.split_result_types(cp, st, results.to_vec())?;
                }
                Elem::DynamicList { operand, attr } => {
                    cp.p.expect(Tok::LSquare, "'['")?;
                    let mut values: Vec<i64> = Vec::new();
                    if !cp.p.try_consume(Tok::RSquare) {
                        loop {
                            if cp.p.peek() == Tok::ValueId {
                                st.operands[*operand].push(cp.p.parse_operand()?);
                                values.push(acc_ir::DYNAMIC);
                            } else {
                                values.push(cp.p.parse_i64()?);
                            }
                            if !cp.p.try_consume(Tok::Comma) {
                                break;
                            }
                        }
                        cp.p.expect(Tok::RSquare, "']' or ','")?;
                    }
                    let ctx = cp.p.context();
                    let element = ctx.int_type(64);
                    let data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                    let value = ctx.intern_attr(AttrData::DenseArray {
                        element,
                        data: data.into(),
                    });
                    let key = ctx.sym(&d.attributes[*attr].name);
                    st.props.push((key, value));
                }
                Elem::Attr(i) => {
                    let decl = &d.attributes[*i];
                    let a = if decl.kind == AttrKind::Unit {
                        cp.p.context().intern_attr(AttrData::Unit)
                    } else {
                        cp.p.parse_attr_of_kind(&decl.kind)?
                    };
                    let key = cp.p.context().sym(&decl.name);
                    st.props.push((key, a));
                }
                Elem::Region(_) => cp.parse_region(state, &[])?,
                Elem::Successor(i) => st.successors[*i] = Some(cp.parse_successor()?),
                Elem::AttrDict { keyword } => {
                    if *keyword {
                        crate::syntax::parse_optional_attributes(cp.p, &mut state.attrs)?;
                    } else if cp.p.peek() == Tok::LBrace {
                        state.attrs.extend(cp.p.parse_attr_dict()?);
                    }
                }
                Elem::Optional { elems, .. } => {
                    if elems.first().is_some_and(|f| self.group_present(cp, f)) {
                        self.parse_elems(cp, state, elems, st)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Gives each operand group its share of `types` (as many as it has operands).
    fn split_operand_types(&self, st: &mut ParseState<'_>, types: Vec<TypeId>) {
        let mut at = 0;
        for (i, group) in st.operands.iter().enumerate() {
            let n = group.len().min(types.len().saturating_sub(at));
            st.operand_types[i] = Some(types[at..at + n].to_vec());
            at += n;
        }
    }

    /// Gives each result group its share of `types`: one for a single result, the rest
    /// to the one optional or variadic group (several flexible result groups cannot be
    /// told apart in a flat list).
    fn split_result_types(
        &self,
        cp: &mut CustomParse<'_, '_, '_>,
        st: &mut ParseState<'_>,
        types: Vec<TypeId>,
    ) -> PResult<()> {
        let decls = &self.decl.results;
        let Some(ranges) = super::super::verify::group_ranges(decls, types.len()) else {
            return cp.p.err(format!(
                "'{}' cannot have {} results",
                self.decl.name,
                types.len()
            ));
        };
        for (i, r) in ranges.into_iter().enumerate() {
            st.result_types[i] = Some(types[r].to_vec());
        }
        Ok(())
    }

    /// Fills the types the format left out, from constraints, relations and traits.
    fn derive_types(&self, ctx: &acc_ir::Context, st: &mut ParseState<'_>) {
        let d = &self.decl;
        for (i, o) in d.operands.iter().enumerate() {
            if st.operand_types[i].is_none()
                && let Some(t) = buildable(&o.constraint)
            {
                st.operand_types[i] = Some(vec![t; st.operands[i].len()]);
            }
        }
        for (i, r) in d.results.iter().enumerate() {
            if st.result_types[i].is_none()
                && r.quantifier == Quantifier::Single
                && let Some(t) = buildable(&r.constraint)
            {
                st.result_types[i] = Some(vec![t]);
            }
        }
        let same_all = d.has_trait("SameOperandsAndResultType");
        let same_operands = same_all || d.has_trait("SameTypeOperands");
        let first =
            |types: &[Option<Vec<TypeId>>]| types.iter().flatten().flatten().next().copied();
        loop {
            let mut changed = false;
            for rel in d.relations.iter().filter(|r| r.kind == RelationKind::Types) {
                let known = rel.values.iter().find_map(|&(res, g)| {
                    let types = if res {
                        &st.result_types
                    } else {
                        &st.operand_types
                    };
                    types[g].as_ref().and_then(|t| t.first().copied())
                });
                let Some(t) = known else { continue };
                for &(res, g) in &rel.values {
                    changed |= fill(st, res, g, t);
                }
            }
            for rel in d
                .relations
                .iter()
                .filter(|r| r.kind == RelationKind::ElementOf)
            {
                let [(cres, cg), (eres, eg)] = rel.values[..] else {
                    continue;
                };
                let types = if cres {
                    &st.result_types
                } else {
                    &st.operand_types
                };
                let Some(container) = types[cg].as_ref().and_then(|t| t.first().copied()) else {
                    continue;
                };
                let element = ctx.type_data(container).element_type().unwrap_or(container);
                changed |= fill(st, eres, eg, element);
            }
            let operand_type = first(&st.operand_types);
            let any_type = operand_type.or_else(|| first(&st.result_types));
            if let Some(t) = if same_all {
                any_type
            } else if same_operands {
                operand_type
            } else {
                None
            } {
                for g in 0..d.operands.len() {
                    changed |= fill(st, false, g, t);
                }
            }
            if same_all && let Some(t) = any_type {
                for g in 0..d.results.len() {
                    if d.results[g].quantifier == Quantifier::Single {
                        changed |= fill(st, true, g, t);
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    /// The segment sizes property for groups of these sizes.
    fn segments(cp: &mut CustomParse<'_, '_, '_>, results: bool, sizes: &[usize]) -> (Sym, AttrId) {
        let ctx = cp.p.context();
        let element = ctx.int_type(32);
        let data: Vec<u8> = sizes
            .iter()
            .flat_map(|&s| (s as i32).to_le_bytes())
            .collect();
        let value = ctx.intern_attr(AttrData::DenseArray {
            element,
            data: data.into(),
        });
        (ctx.sym(segment_property(results)), value)
    }

    pub(super) fn parse_op(
        &self,
        cp: &mut CustomParse<'_, '_, '_>,
        state: &mut OperationState,
    ) -> PResult<()> {
        let d = &self.decl;
        let mut st = ParseState {
            operands: vec![Vec::new(); d.operands.len()],
            operand_types: vec![None; d.operands.len()],
            result_types: vec![None; d.results.len()],
            successors: vec![None; d.successors.len()],
            props: Vec::new(),
        };
        let span = cp.p.tok_span();
        self.parse_elems(cp, state, &self.elems, &mut st)?;
        // A region in an absent optional group is empty.
        while state.regions.len() < d.regions.len() {
            cp.add_empty_region(state);
        }
        self.derive_types(cp.p.context_ref(), &mut st);
        for (i, group) in st.operands.iter().enumerate() {
            let types = st.operand_types[i].take().unwrap_or_default();
            if types.len() != group.len() {
                return cp.p.err_at(
                    span.clone(),
                    format!(
                        "operand '{}' has {} values but {} types",
                        d.operands[i].name,
                        group.len(),
                        types.len()
                    ),
                );
            }
            let resolved = cp.resolve_all(group, &types, span.clone())?;
            state.operands.extend(resolved);
        }
        if OpDecl::needs_segments(&d.operands) {
            let sizes: Vec<usize> = st.operands.iter().map(Vec::len).collect();
            st.props.push(Self::segments(cp, false, &sizes));
        }
        state.successors.extend(st.successors.into_iter().flatten());
        if !st.props.is_empty() {
            state.props = Some(crate::syntax::make_props(cp, st.props)?);
        }
        if st.result_types.iter().any(Option::is_none) {
            self.infer_results(cp, state, &mut st.result_types, span)?;
        }
        if OpDecl::needs_segments(&d.results) {
            let sizes: Vec<usize> = st
                .result_types
                .iter()
                .map(|t| t.as_ref().map_or(0, Vec::len))
                .collect();
            let entry = Self::segments(cp, true, &sizes);
            let mut props = state
                .props
                .map(|p| cp.p.context().dict_entries(p).to_vec())
                .unwrap_or_default();
            props.push(entry);
            state.props = Some(crate::syntax::make_props(cp, props)?);
        }
        for types in st.result_types.into_iter().flatten() {
            state.result_types.extend(types);
        }
        Ok(())
    }

    /// Result types from the op's inference hook.
    fn infer_results(
        &self,
        cp: &mut CustomParse<'_, '_, '_>,
        state: &OperationState,
        result_types: &mut [Option<Vec<TypeId>>],
        span: std::ops::Range<usize>,
    ) -> PResult<()> {
        let Some(infer) = &self.infer else {
            // Only reachable for an optional or variadic result group left unwritten.
            for t in result_types.iter_mut() {
                t.get_or_insert_with(Vec::new);
            }
            return Ok(());
        };
        let operand_types: Vec<TypeId> = state.operands.iter().map(|v| cp.value_type(*v)).collect();
        let attrs = match cp.p.context().dict_attr(state.attrs.clone()) {
            Ok(a) => a,
            Err(_) => cp.p.context().empty_dict(),
        };
        let input = InferInput {
            operand_types: &operand_types,
            props: state.props,
            attrs,
        };
        let inferred = match infer(cp.p.context(), &input) {
            Ok(t) => t,
            Err(m) => return cp.p.err_at(span, format!("'{}' op {m}", self.decl.name)),
        };
        let types: Vec<TypeId> = inferred
            .into_iter()
            .map(|t| cp.p.context().intern_type(t))
            .collect();
        let Some(ranges) = super::super::verify::group_ranges(&self.decl.results, types.len())
        else {
            return cp.p.err_at(
                span,
                format!("'{}' op infers {} results", self.decl.name, types.len()),
            );
        };
        for (slot, r) in result_types.iter_mut().zip(ranges) {
            slot.get_or_insert_with(|| types[r].to_vec());
        }
        Ok(())
    }
}

/// Sets the types of group `g` to `t` repeated, if unknown; true when it did.
fn fill(st: &mut ParseState<'_>, result: bool, g: usize, t: TypeId) -> bool {
    if result {
        if st.result_types[g].is_some() {
            return false;
        }
        st.result_types[g] = Some(vec![t]);
    } else {
        if st.operand_types[g].is_some() {
            return false;
        }
        st.operand_types[g] = Some(vec![t; st.operands[g].len()]);
    }
    true
}

/// Parses `n` comma-separated types (`usize::MAX`: as many as there are).
fn parse_types(cp: &mut CustomParse<'_, '_, '_>, n: usize) -> PResult<Vec<TypeId>> {
    let mut types = Vec::new();
    if n == 0 {
        return Ok(types);
    }
    if n == usize::MAX && !cp.p.at_type() {
        return Ok(types);
    }
    types.push(cp.p.parse_type()?);
    while types.len() < n && cp.p.peek() == Tok::Comma {
        cp.p.try_consume(Tok::Comma);
        types.push(cp.p.parse_type()?);
    }
    Ok(types)
}
