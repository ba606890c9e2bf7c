// The most common value of a tally: what a fabric's peers usually have.
#pragma once

#include <map>
#include <vector>

namespace atl {

// Ties go to the larger value; `fallback` when the tally is empty.
template <class T> T most_common(const std::map<T, int> &counts, T fallback)
{
    T best = fallback;
    int n = 0;
    for (const auto &kv : counts)
        if (kv.second >= n) {
            best = kv.first;
            n = kv.second;
        }
    return best;
}

// The value more than half of a tally holds; `fallback` when none does.
template <class T> T majority(const std::map<T, int> &counts, T fallback)
{
    long total = 0;
    for (const auto &kv : counts)
        total += kv.second;
    for (const auto &kv : counts)
        if (2L * kv.second > total)
            return kv.first;
    return fallback;
}

template <class T> T most_common(const std::vector<T> &values, T fallback)
{
    std::map<T, int> counts;
    for (const T &v : values)
        ++counts[v];
    return most_common(counts, fallback);
}

}  // namespace atl
