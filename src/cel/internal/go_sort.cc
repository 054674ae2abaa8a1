#include "cel/internal/go_sort.h"

#include <cstdint>

namespace draplane::cel::internal {
namespace {

// Positions are signed, as Go's ints: the partition loops step below the
// start of a range.
using Pos = int64_t;

// bits.Len: the number of bits needed to represent x (0 for 0).
int BitLength(uint64_t x) { return x == 0 ? 0 : 64 - __builtin_clzll(x); }

enum class Hint { kUnknown, kIncreasing, kDecreasing };

// One sort.Slice call (Go sort/zsortfunc.go, the *_func variants). The
// structure and constants follow Go exactly; see go_sort.h for why.
class Sorter {
 public:
  Sorter(absl::FunctionRef<bool(size_t, size_t)> less,
         absl::FunctionRef<void(size_t, size_t)> swap)
      : less_(less), swap_(swap) {}

  void Sort(Pos n) { Pdqsort(0, n, BitLength(static_cast<uint64_t>(n))); }

 private:
  bool Less(Pos i, Pos j) const {
    return less_(static_cast<size_t>(i), static_cast<size_t>(j));
  }
  void Swap(Pos i, Pos j) const {
    swap_(static_cast<size_t>(i), static_cast<size_t>(j));
  }

  void InsertionSort(Pos a, Pos b) const {
    for (Pos i = a + 1; i < b; ++i) {
      for (Pos j = i; j > a && Less(j, j - 1); --j) Swap(j, j - 1);
    }
  }

  void SiftDown(Pos lo, Pos hi, Pos first) const {
    Pos root = lo;
    for (;;) {
      Pos child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && Less(first + child, first + child + 1)) ++child;
      if (!Less(first + root, first + child)) return;
      Swap(first + root, first + child);
      root = child;
    }
  }

  void HeapSort(Pos a, Pos b) const {
    Pos first = a, lo = 0, hi = b - a;
    for (Pos i = (hi - 1) / 2; i >= 0; --i) SiftDown(i, hi, first);
    for (Pos i = hi - 1; i >= 0; --i) {
      Swap(first, first + i);
      SiftDown(lo, i, first);
    }
  }

  void Pdqsort(Pos a, Pos b, int limit) const {
    constexpr Pos kMaxInsertion = 12;
    bool was_balanced = true;
    bool was_partitioned = true;
    for (;;) {
      Pos length = b - a;
      if (length <= kMaxInsertion) {
        InsertionSort(a, b);
        return;
      }
      if (limit == 0) {
        HeapSort(a, b);
        return;
      }
      if (!was_balanced) {
        BreakPatterns(a, b);
        --limit;
      }
      Hint hint;
      Pos pivot = ChoosePivot(a, b, &hint);
      if (hint == Hint::kDecreasing) {
        ReverseRange(a, b);
        pivot = (b - 1) - (pivot - a);
        hint = Hint::kIncreasing;
      }
      if (was_balanced && was_partitioned && hint == Hint::kIncreasing &&
          PartialInsertionSort(a, b)) {
        return;
      }
      if (a > 0 && !Less(a - 1, pivot)) {
        a = PartitionEqual(a, b, pivot);
        continue;
      }
      bool already_partitioned;
      Pos mid = Partition(a, b, pivot, &already_partitioned);
      was_partitioned = already_partitioned;
      Pos left_len = mid - a, right_len = b - mid;
      Pos balance_threshold = length / 8;
      if (left_len < right_len) {
        was_balanced = left_len >= balance_threshold;
        Pdqsort(a, mid, limit);
        a = mid + 1;
      } else {
        was_balanced = right_len >= balance_threshold;
        Pdqsort(mid + 1, b, limit);
        b = mid;
      }
    }
  }

  Pos Partition(Pos a, Pos b, Pos pivot, bool* already_partitioned) const {
    Swap(a, pivot);
    Pos i = a + 1, j = b - 1;
    while (i <= j && Less(i, a)) ++i;
    while (i <= j && !Less(j, a)) --j;
    if (i > j) {
      Swap(j, a);
      *already_partitioned = true;
      return j;
    }
    Swap(i, j);
    ++i;
    --j;
    for (;;) {
      while (i <= j && Less(i, a)) ++i;
      while (i <= j && !Less(j, a)) --j;
      if (i > j) break;
      Swap(i, j);
      ++i;
      --j;
    }
    Swap(j, a);
    *already_partitioned = false;
    return j;
  }

  Pos PartitionEqual(Pos a, Pos b, Pos pivot) const {
    Swap(a, pivot);
    Pos i = a + 1, j = b - 1;
    for (;;) {
      while (i <= j && !Less(a, i)) ++i;
      while (i <= j && Less(a, j)) --j;
      if (i > j) break;
      Swap(i, j);
      ++i;
      --j;
    }
    return i;
  }

  bool PartialInsertionSort(Pos a, Pos b) const {
    constexpr int kMaxSteps = 5;
    constexpr Pos kShortestShifting = 50;
    Pos i = a + 1;
    for (int step = 0; step < kMaxSteps; ++step) {
      while (i < b && !Less(i, i - 1)) ++i;
      if (i == b) return true;
      if (b - a < kShortestShifting) return false;
      Swap(i, i - 1);
      // Go shifts down to position 1 and up to the end of the whole slice
      // here, not of [a, b); kept as is.
      if (i - a >= 2) {
        for (Pos j = i - 1; j >= 1; --j) {
          if (!Less(j, j - 1)) break;
          Swap(j, j - 1);
        }
      }
      if (b - i >= 2) {
        for (Pos j = i + 1; j < b; ++j) {
          if (!Less(j, j - 1)) break;
          Swap(j, j - 1);
        }
      }
    }
    return false;
  }

  void BreakPatterns(Pos a, Pos b) const {
    Pos length = b - a;
    if (length < 8) return;
    uint64_t random = static_cast<uint64_t>(length);  // Go's xorshift seed
    uint64_t modulus = uint64_t{1} << BitLength(static_cast<uint64_t>(length));
    for (Pos idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1;
         ++idx) {
      random ^= random << 13;
      random ^= random >> 7;
      random ^= random << 17;
      Pos other = static_cast<Pos>(random & (modulus - 1));
      if (other >= length) other -= length;
      Swap(idx, a + other);
    }
  }

  Pos ChoosePivot(Pos a, Pos b, Hint* hint) const {
    constexpr Pos kShortestNinther = 50;
    constexpr int kMaxSwaps = 4 * 3;
    Pos l = b - a;
    int swaps = 0;
    Pos i = a + l / 4 * 1;
    Pos j = a + l / 4 * 2;
    Pos k = a + l / 4 * 3;
    if (l >= 8) {
      if (l >= kShortestNinther) {
        i = Median(i - 1, i, i + 1, &swaps);
        j = Median(j - 1, j, j + 1, &swaps);
        k = Median(k - 1, k, k + 1, &swaps);
      }
      j = Median(i, j, k, &swaps);
    }
    *hint = swaps == 0           ? Hint::kIncreasing
            : swaps == kMaxSwaps ? Hint::kDecreasing
                                 : Hint::kUnknown;
    return j;
  }

  // Orders (x, y) so that data[x] <= data[y].
  void Order2(Pos* x, Pos* y, int* swaps) const {
    if (Less(*y, *x)) {
      ++*swaps;
      Pos t = *x;
      *x = *y;
      *y = t;
    }
  }

  Pos Median(Pos a, Pos b, Pos c, int* swaps) const {
    Order2(&a, &b, swaps);
    Order2(&b, &c, swaps);
    Order2(&a, &b, swaps);
    return b;
  }

  void ReverseRange(Pos a, Pos b) const {
    for (Pos i = a, j = b - 1; i < j; ++i, --j) Swap(i, j);
  }

  absl::FunctionRef<bool(size_t, size_t)> less_;
  absl::FunctionRef<void(size_t, size_t)> swap_;
};

}  // namespace

void GoSortSlice(size_t n, absl::FunctionRef<bool(size_t, size_t)> less,
                 absl::FunctionRef<void(size_t, size_t)> swap) {
  Sorter(less, swap).Sort(static_cast<Pos>(n));
}

}  // namespace draplane::cel::internal
