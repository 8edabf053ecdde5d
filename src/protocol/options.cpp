#include "khun/protocol/options.h"

#include "khun/protocol/text.h"

#include <algorithm>
#include <cassert>

namespace khun::protocol {

using protocol::lower;

const char* option_type_name(EngineOption::Type t) {
    switch (t) {
    case EngineOption::Type::Spin: return "spin";
    case EngineOption::Type::Check: return "check";
    case EngineOption::Type::Combo: return "combo";
    case EngineOption::Type::Button: return "button";
    case EngineOption::Type::String: return "string";
    }
    return "string";
}

namespace {

// The typed copy of a value already checked by normalise(): a spin's number, a check's flag.
void store(const EngineOption& o, long long number) {
    if (auto* i = std::get_if<int*>(&o.typed)) **i = int(number);
    if (auto* b = std::get_if<bool*>(&o.typed)) **b = o.value == "true";
}

} // namespace

void OptionSet::add(EngineOption o) {
    assert(o.type == EngineOption::Type::Spin || !std::holds_alternative<int*>(o.typed));
    assert(o.type == EngineOption::Type::Check || !std::holds_alternative<bool*>(o.typed));
    o.value = o.defaultValue;
    store(o, o.type == EngineOption::Type::Spin ? std::stoll(o.defaultValue) : 0);
    opts.push_back(std::move(o));
}

const EngineOption* OptionSet::find(const std::string& name) const {
    const std::string key = lower(name);
    for (const EngineOption& o : opts)
        if (lower(o.name) == key) return &o;
    return nullptr;
}

std::string OptionSet::get(const std::string& name) const {
    const EngineOption* o = find(name);
    return o ? o->value : "";
}

namespace {

// What `value` stands for in option `o`: its text and, for a spin, its number; or an
// error (a note when it was adjusted).
struct Normalised {
    std::string text;
    long long number = 0;
};
std::optional<Normalised> normalise(const EngineOption& o, const std::string& value,
                                    OptionResult& r) {
    switch (o.type) {
    case EngineOption::Type::Spin: {
        // Past 18 characters a value is no number a GUI means: refused, not clamped.
        auto n = value.size() <= 18 ? protocol::number(value, o.min, o.max) : std::nullopt;
        if (!n) {
            r.error = "option '" + o.name + "' needs a number from " + std::to_string(o.min) +
                      " to " + std::to_string(o.max) + ", not '" + value + "'";
            return std::nullopt;
        }
        if (protocol::clamped(value, *n))
            r.note = "option '" + o.name + "' value " + value + " clamped to " + std::to_string(*n);
        return Normalised{std::to_string(*n), *n};
    }
    case EngineOption::Type::Check: {
        std::string v = lower(value);
        if (v != "true" && v != "false") {
            r.error = "option '" + o.name + "' needs true or false, not '" + value + "'";
            return std::nullopt;
        }
        return Normalised{v};
    }
    case EngineOption::Type::Combo: {
        auto m = std::find_if(o.vars.begin(), o.vars.end(),
                              [&](const std::string& x) { return lower(x) == lower(value); });
        if (m == o.vars.end()) {
            r.error = "option '" + o.name + "' has no value '" + value + "'";
            return std::nullopt;
        }
        return Normalised{*m};
    }
    default: return Normalised{value};
    }
}

} // namespace

OptionResult OptionSet::set(const std::string& name, const std::string& value) {
    OptionResult r;
    const EngineOption* found = find(name);
    if (!found) {
        r.note = "unknown option '" + name + "' ignored";
        return r;
    }
    EngineOption& o = opts[size_t(found - opts.data())];
    auto v = normalise(o, value, r);
    if (!v) return r;
    std::string previous = o.value;
    long long previousNumber = 0; // a bound spin's number, put back with `previous`
    if (auto* i = std::get_if<int*>(&o.typed)) previousNumber = **i;
    o.value = v->text;
    store(o, v->number);
    if (o.onChange) o.onChange(o, previous, r);
    if (r.error) {
        o.value = previous;
        store(o, previousNumber);
    }
    return r;
}

} // namespace khun::protocol
